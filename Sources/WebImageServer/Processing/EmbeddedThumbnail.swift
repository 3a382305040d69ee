import Foundation
import WebImage

/// The thumbnail embedded in a JPEG source as a file, for `enforce_thumbnail`: its EXIF thumbnail
/// (``EXIFThumbnail``), with the main image's EXIF orientation, which a thumbnail shares with
/// the image it was made from.
struct EmbeddedThumbnail: Sendable {
    /// The thumbnail's own JPEG file.
    let data: Data
    /// The main image's EXIF orientation (`.up` when it has none).
    let orientation: ImageOrientation

    /// The thumbnail of `data` (detected as `format`), or `nil` when the source has none as a
    /// file of its own: only JPEG sources' EXIF thumbnails are (HEIC, HEIF and AVIF thumbnails
    /// are images inside the container, which libheif decodes:
    /// ``ImageProcessor/decodeContainerThumbnail(_:format:options:)``).
    init?(_ data: Data, format: ImageFormat) {
        guard format == .jpeg, let thumbnail = EXIFThumbnail.jpeg(in: data) else { return nil }
        self.data = thumbnail
        orientation = EXIFOrientation.orientation(fromJPEG: data) ?? .up
    }
}
