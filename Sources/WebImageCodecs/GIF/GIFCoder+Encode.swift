import Foundation
import WebImageCore

extension GIFCoder {
    /// `true` for ``/WebImageCore/ImageFormat/gif``.
    public func canEncode(_ format: ImageFormat) -> Bool { format == .gif }

    /// Encodes `image` as a GIF89a (SPEC C-5).
    ///
    /// - Pixels are turned upright first when the image carries an orientation.
    /// - ``/WebImageCore/EncodeOptions/keepAnimation`` keeps every frame with its duration and the loop count;
    ///   otherwise only the first frame is written.
    /// - ``/WebImageCore/EncodeOptions/maxPixelSize`` shrinks every frame to fit (aspect ratio kept).
    /// - Each frame is quantised to at most 256 colours (one used for transparency when a frame
    ///   has pixels with alpha below 128): exactly when it has few enough colours, by median cut
    ///   otherwise (see `GIFQuantizer`). ``/WebImageCore/EncodeOptions/quality`` does not apply (GIF is a
    ///   palette format), except that a ``/WebImageCore/EncodeOptions/maxFileSize`` search maps quality to the
    ///   palette size (1 → 256 colours, 0.05 → 13) before shrinking the image.
    /// - Throws: `unsupportedFormat` for another format; `encodingFailed` when giflib fails or a
    ///   side exceeds 65535 pixels.
    public func encode(_ image: Image, format: ImageFormat, options: EncodeOptions) throws -> Data {
        guard format == .gif else {
            throw WebImageError.unsupportedFormat(format, reason: "GIFCoder encodes only GIF")
        }
        let source = options.preparedImage(image)
        let prepared = Image(
            frames: source.frames, scale: image.scale, orientation: .up, format: .gif, loopCount: image.loopCount,
            hasAlpha: image.hasAlpha)
        if let maxBytes = options.maxFileSize {
            return try FileSizeSearch.encode(prepared, maxBytes: maxBytes, startQuality: 1) { candidate, quality in
                Data(try GIFWriter.write(candidate, maxColors: Int((quality * 256).rounded())))
            }
        }
        return Data(try GIFWriter.write(prepared, maxColors: 256))
    }
}
