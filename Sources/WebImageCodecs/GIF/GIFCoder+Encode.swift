import Foundation
import WebImageCore

extension GIFCoder: AnimatedImageEncoding {
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
    /// - The frames go through the same encoder as
    ///   ``makeAnimatedEncoder(format:frameSize:loopCount:hasAlpha:options:)``.
    /// - Throws: `unsupportedFormat` for another format; `encodingFailed` when giflib fails or a
    ///   side exceeds 65535 pixels.
    public func encode(_ image: Image, format: ImageFormat, options: EncodeOptions) throws -> Data {
        let image = EightBitOutput.prepare(image)
        guard format == .gif else {
            throw WebImageError.unsupportedFormat(format, reason: "GIFCoder encodes only GIF")
        }
        let source = options.preparedImage(image)
        let prepared = Image(
            frames: source.frames, scale: image.scale, orientation: .up, format: .gif, loopCount: image.loopCount,
            hasAlpha: image.hasAlpha)
        func write(_ candidate: Image, maxColors: Int) throws -> Data {
            let writer = try GIFFrameWriter(size: candidate.pixelSize, loopCount: candidate.loopCount, maxColors: maxColors)
            return try FrameByFrameEncoder.encode(candidate, with: writer)
        }
        if let maxBytes = options.maxFileSize {
            return try FileSizeSearch.encode(prepared, maxBytes: maxBytes, startQuality: 1) { candidate, quality in
                try write(candidate, maxColors: Int((quality * 256).rounded()))
            }
        }
        return try write(prepared, maxColors: 256)
    }

    /// A GIF encoder that writes each frame as it is added (256 colours a frame; `hasAlpha` is
    /// not needed: transparency is found per frame).
    /// - Throws: `unsupportedFormat` for another format; `encodingFailed` when a side of the
    ///   output exceeds 65535 pixels.
    public func makeAnimatedEncoder(
        format: ImageFormat, frameSize: PixelSize, loopCount: Int, hasAlpha: Bool, options: EncodeOptions
    ) throws -> any AnimatedImageEncoder {
        guard format == .gif else {
            throw WebImageError.unsupportedFormat(format, reason: "GIFCoder encodes only GIF")
        }
        let output = FrameByFrameEncoder.outputSize(for: frameSize, options: options)
        let writer = try GIFFrameWriter(size: output, loopCount: loopCount, maxColors: 256)
        return FrameByFrameEncoder(
            writer: writer, frameSize: frameSize, outputSize: output, keepsAnimation: options.keepAnimation)
    }
}
