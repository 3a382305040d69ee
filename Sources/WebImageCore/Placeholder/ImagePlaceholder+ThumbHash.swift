import Foundation

extension ImagePlaceholder {
    /// The ThumbHash of `image` (Evan Wallace's algorithm, https://evanw.github.io/thumbhash/)
    /// as standard base64 with padding.
    ///
    /// Computed from ``encoderInput(of:)`` (the first frame within 100 × 100 pixels).
    /// Transparency is kept: a ThumbHash of a partly transparent image has an alpha channel.
    public static func thumbHash(of image: Image) -> String {
        thumbHash(ofPixels: encoderInput(of: image))
    }

    /// The ThumbHash of exactly these pixels as base64; larger than 100 × 100 pixels they are
    /// first reduced with ``encoderInput(of:)``.
    public static func thumbHash(ofPixels pixels: PixelBuffer) -> String {
        thumbHashBytes(ofPixels: pixels).base64EncodedString()
    }

    /// The ThumbHash of these pixels as bytes (at most 25 for an opaque image).
    ///
    /// The pixels are turned into luminance `L = (r+g+b)/3`, `P = (r+g)/2 − b`, `Q = r − g`
    /// and alpha (colour composited over the average colour where transparent), and each
    /// channel into DCT coefficients (L: up to 7 per side by aspect ratio, 5 with alpha; P, Q:
    /// 3; alpha: 5), quantised to 4 bits around its largest coefficient. Rounding is half up
    /// (JavaScript's `Math.round`), as in the reference encoder.
    public static func thumbHashBytes(ofPixels pixels: PixelBuffer) -> Data {
        Data(ThumbHashEncoder(reduced(pixels)).encode())
    }

    /// Decodes a ThumbHash (base64, with or without padding) into a small image: 32 pixels
    /// on the longer side, the aspect ratio the hash stores, with alpha when the hash has it.
    /// - Parameters:
    ///   - thumbHash: the ThumbHash, standard or URL-safe base64.
    ///   - saturationBoost: multiplies the colour terms (the reference decoder uses 1.25);
    ///     clamped to 0…4, a value that is not finite counts as 1.25.
    /// - Throws: ``WebImageError/badImageData(reason:)`` when the string is not base64 or
    ///   too short for the header it announces.
    public static func image(fromThumbHash thumbHash: String, saturationBoost: Double = 1.25) throws(WebImageError) -> Image {
        guard thumbHash.utf8.count <= 64, let data = decodeBase64(thumbHash) else {
            throw .badImageData(reason: "a ThumbHash is a short base64 string; this is not one")
        }
        return try image(fromThumbHashBytes: data, saturationBoost: saturationBoost)
    }

    /// Decodes ThumbHash bytes into a small image; see ``image(fromThumbHash:saturationBoost:)``.
    public static func image(fromThumbHashBytes bytes: Data, saturationBoost: Double = 1.25) throws(WebImageError) -> Image {
        let boost = saturationBoost.isFinite ? min(4, max(0, saturationBoost)) : 1.25
        let decoder = try ThumbHashDecoder(Array(bytes.prefix(64)), saturationBoost: boost)
        return decoder.render()
    }

    /// The aspect ratio (width / height) a ThumbHash stores, or `nil` when the string is not
    /// a ThumbHash.
    public static func thumbHashAspectRatio(_ thumbHash: String) -> Double? {
        guard let data = decodeBase64(thumbHash), let decoder = try? ThumbHashDecoder(Array(data), saturationBoost: 1)
        else { return nil }
        return decoder.aspectRatio
    }

    /// Standard or URL-safe base64, padding optional.
    private static func decodeBase64(_ text: String) -> Data? {
        var standard = String(text.map { $0 == "-" ? "+" : $0 == "_" ? "/" : $0 })
        while standard.utf8.count % 4 != 0 { standard += "=" }
        return Data(base64Encoded: standard)
    }
}
