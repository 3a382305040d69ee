import WebImageCore

/// The colour step at the end of every decode (G-2, G-3): what
/// ``/WebImageCore/DecodeOptions/colorManagement`` asks for, applied to the decoded (already
/// reduced) pixels.
public enum ColorConversion {
    /// `image` (decoded as stored, without a profile) finished for `options`: converted to sRGB
    /// (the default), or with `profile` attached (`.preserve`), or as it is (`.ignore`).
    /// Untagged images and sRGB-equivalent profiles are returned as they are.
    public static func finish(_ image: Image, profile: ColorProfile?, options: DecodeOptions) -> Image {
        guard let profile else { return image }
        switch options.colorManagement {
        case .ignore:
            return image
        case .preserve:
            // 8-bit PQ/HLG values with a profile no encoder can embed would be shown dim and
            // flat everywhere: the SDR rendition is the default for them (H-4).
            if HDRToSDR.isToneMapped(profile) { return toSRGB(image, profile: profile) }
            return image.replacing(colorProfile: profile)
        case .convertToSRGB:
            return toSRGB(image, profile: profile)
        }
    }

    /// `image`'s pixels, read in `profile`, converted to sRGB; the result carries no profile.
    /// Frames that share one buffer are converted once and keep sharing.
    public static func toSRGB(_ image: Image, profile: ColorProfile) -> Image {
        let transform = ColorTransformCache.shared.transform(for: profile)
        if case .identity = transform { return image.replacing(colorProfile: nil) }
        let converted = image.mappingFrames { convert($0, transform) } ?? image
        return converted.replacing(colorProfile: nil)
    }

    /// Whether decoding with `profile` converts pixels (false for sRGB-equivalent and
    /// unconvertible descriptions).
    public static func convertsPixels(_ profile: ColorProfile) -> Bool {
        if case .identity = ColorTransformCache.shared.transform(for: profile) { return false }
        return true
    }

    /// `pixels` (RGBA8) read in `profile`, converted to sRGB: a new buffer, or `pixels` itself
    /// when the profile needs no conversion. Animated sources convert each frame with it.
    public static func toSRGB(_ pixels: PixelBuffer, from profile: ColorProfile) -> PixelBuffer {
        let transform = ColorTransformCache.shared.transform(for: profile)
        if case .identity = transform { return pixels }
        return convert(pixels, transform)
    }

    static func convert(_ pixels: PixelBuffer, _ transform: ColorTransform) -> PixelBuffer {
        let count = pixels.width * pixels.height
        return pixels.bytes.withUnsafeBufferPointer { source in
            PixelBuffer.make(width: pixels.width, height: pixels.height) { out in
                let src = source.baseAddress!
                let dst = out.baseAddress!
                switch transform {
                case .identity, .lcmsCMYK:
                    // CMYK is converted inside the JPEG decoder, before the buffer is RGBA.
                    dst.update(from: src, count: count * 4)
                case .matrixShaper(let fast):
                    fast.apply(src, dst, count: count)
                case .gray(let table):
                    applyGray(table, src, dst, count: count)
                case .lcmsRGBA(let lcms):
                    lcms.apply(src, dst, count: count)
                case .toneMap(let hdr):
                    hdr.apply(src, dst, count: count)
                }
            }
        }
    }

    /// The grey profile's table applied to each colour channel of `count` RGBA8 pixels, alpha
    /// copied; `source` and `target` may be the same buffer.
    static func applyGray(_ table: [UInt8], _ source: UnsafePointer<UInt8>, _ target: UnsafeMutablePointer<UInt8>, count: Int) {
        for i in 0..<count {
            let p = i * 4
            target[p] = table[Int(source[p])]
            target[p + 1] = table[Int(source[p + 1])]
            target[p + 2] = table[Int(source[p + 2])]
            target[p + 3] = source[p + 3]
        }
    }

    /// Converts RGBA8 pixels (straight alpha, 4 bytes a pixel) read in `profile` to sRGB in
    /// place, as decoders do with the buffer they just filled.
    /// - Returns: `false` when `profile` needs no conversion (sRGB-equivalent, or a description
    ///   the library cannot convert) or is CMYK; the pixels are then untouched.
    @discardableResult
    public static func convertToSRGB(_ pixels: UnsafeMutableBufferPointer<UInt8>, from profile: ColorProfile) -> Bool {
        guard let base = pixels.baseAddress else { return false }
        let count = pixels.count / 4
        switch ColorTransformCache.shared.transform(for: profile) {
        case .identity, .lcmsCMYK:
            return false
        case .matrixShaper(let fast):
            fast.apply(base, base, count: count)
        case .gray(let table):
            applyGray(table, UnsafePointer(base), base, count: count)
        case .lcmsRGBA(let lcms):
            lcms.apply(base, base, count: count)
        case .toneMap(let hdr):
            hdr.apply(UnsafePointer(base), base, count: count)
        }
        return true
    }

    /// Converts CMYK pixels (TurboJPEG's 4 bytes a pixel) to opaque RGBA in place with
    /// `profile`; `false` when the profile gives no CMYK transform (the caller falls back to
    /// the naive conversion).
    static func convertCMYK(_ pixels: UnsafeMutableBufferPointer<UInt8>, profile: ColorProfile, inverted: Bool) -> Bool {
        guard case .lcmsCMYK(let plain, let invertedTransform) = ColorTransformCache.shared.transform(for: profile),
            let base = pixels.baseAddress
        else { return false }
        let count = pixels.count / 4
        // LittleCMS converts in place when input and output pixels have the same size.
        (inverted ? invertedTransform : plain).apply(base, base, count: count)
        var i = 3
        while i < pixels.count {
            pixels[i] = 255
            i += 4
        }
        return true
    }
}
