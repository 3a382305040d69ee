import Foundation

/// How the WebP encoder compresses (imgproxy's `IMGPROXY_WEBP_*` settings and `webp_options`),
/// part of ``EncodeOptions``.
public struct WebPEncodeSettings: Sendable, Hashable {
    /// The compression method.
    public enum Compression: String, Sendable, Hashable, CaseIterable {
        /// VP8 lossy at the quality asked for.
        case lossy
        /// VP8L lossless (the quality is the effort).
        case lossless
        /// VP8L after libwebp's near-lossless preprocessing, whose strength follows the quality
        /// (100 = none, lower changes more pixel values; as libvips).
        case nearLossless = "near_lossless"
    }

    /// libwebp's content presets (`WebPConfigPreset`): filter strength, sharpness and
    /// segmentation tuned for a kind of picture.
    public enum Preset: String, Sendable, Hashable, CaseIterable {
        /// General purpose.
        case `default`
        /// A digital picture, like a portrait or an inner shot.
        case photo
        /// An outdoor photograph with natural lighting.
        case picture
        /// A hand or line drawing with high-contrast details.
        case drawing
        /// A small colourful image.
        case icon
        /// Text, with large areas of one colour.
        case text
    }

    /// The method; ``EncodeOptions/lossless`` also asks for lossless.
    public var compression: Compression
    /// libwebp's sharp RGB→YUV conversion (`use_sharp_yuv`): slower, larger, truer colour edges.
    public var smartSubsample: Bool
    /// The content preset.
    public var preset: Preset

    /// Settings: lossy, plain subsampling, the default preset.
    public init(compression: Compression = .lossy, smartSubsample: Bool = false, preset: Preset = .default) {
        self.compression = compression
        self.smartSubsample = smartSubsample
        self.preset = preset
    }
}
