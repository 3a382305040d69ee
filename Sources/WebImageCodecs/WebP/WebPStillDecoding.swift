import CWebP
import Foundation
import WebImageCore

/// Decoding of still (non-animated) WebP images: lossy, lossless, with or without alpha.
enum WebPStillDecoding {
    /// Decodes a still image straight into its final ``/WebImageCore/PixelBuffer``.
    ///
    /// The limits are checked from the header before anything is allocated. When the options
    /// ask for a smaller size, libwebp scales while decoding (no full-size buffer, no second pass).
    /// An EXIF orientation (extended files) is applied unless the options keep pixels as stored.
    /// `storedTarget`, when given, is the size to decode to in stored axes (a reduced decode);
    /// otherwise the options' thumbnail settings choose it.
    static func decode(
        _ data: Data, features: WebPBitstreamFeatures, options: DecodeOptions, storedTarget: PixelSize? = nil
    ) throws -> Image {
        let full = PixelSize(width: Int(features.width), height: Int(features.height))
        let orientation = WebPEXIF.orientation(of: data)
        let applied = options.applyOrientation ? orientation : .up
        // The target size is chosen for the image as shown, then decoded in stored axes.
        let shownTarget = options.targetSize(for: applied.swapsDimensions ? PixelSize(width: full.height, height: full.width) : full)
        let target = storedTarget
            ?? (applied.swapsDimensions ? PixelSize(width: shownTarget.height, height: shownTarget.width) : shownTarget)
        // The pixel limit on the stored size, the decoded-bytes budget on what the (scaled)
        // decode allocates; both before any pixel memory exists.
        try options.limits.check(canvas: full, allocating: target)

        var config = WebPDecoderConfig()
        guard WebPInitDecoderConfig(&config) != 0 else {
            throw WebImageError.unsupportedFormat(.webp, reason: "libwebp decoder ABI mismatch")
        }
        if target != full {
            config.options.use_scaling = 1
            config.options.scaled_width = Int32(target.width)
            config.options.scaled_height = Int32(target.height)
        }
        config.output.colorspace = MODE_RGBA
        config.output.is_external_memory = 1
        defer { WebPFreeDecBuffer(&config.output) }

        let pixels = try data.withUnsafeBytes { raw -> PixelBuffer in
            guard let base = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
                throw WebImageError.badImageData(reason: "empty WebP data")
            }
            return try PixelBuffer.make(width: target.width, height: target.height) { out in
                config.output.u.RGBA.rgba = out.baseAddress
                config.output.u.RGBA.stride = Int32(target.width * PixelBuffer.bytesPerPixel)
                config.output.u.RGBA.size = out.count
                let status = WebPDecode(base, raw.count, &config)
                guard status == VP8_STATUS_OK else {
                    throw WebImageError.badImageData(reason: "WebP: \(WebPSupport.describe(status))")
                }
            }
        }
        let image = Image(
            pixels: pixels.applying(applied), scale: options.imageScale,
            orientation: options.applyOrientation ? .up : orientation, format: .webp,
            hasAlpha: features.has_alpha != 0)
        let profile = options.colorManagement == .ignore ? nil : WebPICCProfile.read(data)
        return ColorConversion.finish(image, profile: profile, options: options)
    }
}
