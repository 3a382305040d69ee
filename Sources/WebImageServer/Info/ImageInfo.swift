import Foundation
import WebImage

/// What `/info` answers for one source (SPEC V-14): the header's metadata and the
/// placeholders computed from a small decode, encoded as JSON with snake_case keys.
struct ImageInfo: Sendable, Encodable {
    /// One dominant colour: `#rrggbb` and its share of the pixels (0…1).
    struct Color: Sendable, Encodable {
        var hex: String
        var share: Double
    }

    /// Width and height as displayed (the EXIF orientation applied).
    var width: Int
    var height: Int
    /// The source format's name (`jpeg`, `png`, `gif`, …).
    var format: String
    var frames: Int
    /// The animation's total duration in milliseconds; 0 for a still image.
    var durationMs: Int
    /// The animation's loop count (0 = forever); `nil` for a still image.
    var loopCount: Int?
    /// The EXIF orientation, 1…8.
    var orientation: Int
    /// The colour model of the pixel values (`rgb`, `gray`, `cmyk`, …).
    var colorSpace: String
    /// The embedded or declared colour description's name; `nil` when untagged (read as sRGB).
    var colorProfile: String?
    /// The source's size in bytes.
    var bytes: Int
    var blurhash: String
    /// The BlurHash components as `XxY`, e.g. `4x3`.
    var blurhashComponents: String
    /// The ThumbHash, base64.
    var thumbhash: String
    var dominantColors: [Color]
    /// The HDR the source carries (SPEC H-5): its gain map, or why one it signals was dropped.
    var hdr: HDRInfo
    /// `perceptual_hash`: 16 hex digits (``PerceptualHash``); absent unless asked for.
    var perceptualHash: String?
    /// `average`: the mean colour; absent unless asked for.
    var average: InfoColor?
    /// `palette`: the colours, the most common first; absent unless asked for.
    var palette: [InfoColor]?

    enum CodingKeys: String, CodingKey {
        case width, height, format, frames
        case durationMs = "duration"
        case loopCount = "loop_count"
        case orientation
        case colorSpace = "color_space"
        case colorProfile = "color_profile"
        case bytes, blurhash
        case blurhashComponents = "blurhash_components"
        case thumbhash
        case dominantColors = "dominant_colors"
        case hdr
        case perceptualHash = "perceptual_hash"
        case average, palette
    }

    /// The info of a source described by `metadata` (`durationMs` from its frame table), of
    /// `bytes` bytes, with the placeholders of `summary`.
    init(metadata: ImageMetadata, durationMs: Int, bytes: Int, summary: PlaceholderSummary) {
        let shown = metadata.displaySize
        width = shown.width
        height = shown.height
        format = metadata.format.rawValue
        frames = max(1, metadata.frameCount ?? 1)
        self.durationMs = durationMs
        loopCount = frames > 1 ? (metadata.loopCount ?? 0) : nil
        orientation = metadata.orientation.rawValue
        colorSpace = metadata.colorProfile?.colorModel.rawValue ?? ColorModel.rgb.rawValue
        colorProfile = metadata.colorProfile?.name
        self.bytes = bytes
        blurhash = summary.blurHash
        blurhashComponents = summary.blurHashComponents.description
        thumbhash = summary.thumbHash
        dominantColors = summary.dominantColors.map { Color(hex: $0.hex, share: ($0.share * 1000).rounded() / 1000) }
        hdr = HDRInfo(metadata: metadata)
    }

    /// The JSON body: keys sorted, so equal infos give equal bytes.
    func json() throws(ImageServiceError) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        do { return try encoder.encode(self) } catch { throw .unprocessable("info encoding failed") }
    }
}
