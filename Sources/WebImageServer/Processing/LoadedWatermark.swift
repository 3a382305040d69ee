import WebImage

/// The service's watermark image, decoded, as the `watermark` option puts it on results.
struct LoadedWatermark: Sendable {
    /// The watermark (its first frame, upright, sRGB, straight alpha).
    let image: Image
    /// Hex SHA-256 of the watermark file: part of the ETag and result keys of watermarked
    /// results, so a changed watermark makes new ones.
    let identity: String
    /// The service's base opacity (`watermark-opacity`), multiplied by the option's.
    let baseOpacity: Double
}
