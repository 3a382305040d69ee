import Foundation
import WebImage

/// Decode → encode → atomic write, shared by `webimage convert` and the demo's thumbnails.
struct ImageConversion: Sendable {
    var format: ImageFormat
    var decodeOptions = DecodeOptions()
    var encodeOptions = EncodeOptions()
    /// Applied between decoding and encoding, when set.
    var transformer: (any ImageTransformer)?
    var coders: CodersManager = .shared

    /// What a conversion produced.
    struct Result: Sendable {
        /// The size of the frames written.
        var pixelSize: PixelSize
        var frameCount: Int
        var bytes: Int
    }

    /// Decodes `data`, applies ``transformer``, encodes as ``format`` and writes to `output`
    /// atomically (a temporary file renamed into place, so a reader never sees half a file).
    ///
    /// An animation goes frame by frame when the codecs can
    /// (``CodersManager/convertFrameByFrame(_:to:decodeOptions:encodeOptions:transformer:key:)``):
    /// one or two canvases in memory whatever the frame count (SPEC R-3).
    /// - Throws: the decoder's or encoder's ``WebImageError``; `badImageData` when the transform
    ///   is impossible for this image; `cacheIO` when writing fails.
    /// - Parameter mayCommit: asked just before the output is renamed into place; `false`
    ///   (`--max-time` ran out) drops the output and throws `cancelled`.
    func convert(_ data: Data, to output: URL, mayCommit: (() -> Bool)? = nil) throws -> Result {
        if let converted = try coders.convertFrameByFrame(
            data, to: format, decodeOptions: decodeOptions, encodeOptions: encodeOptions, transformer: transformer,
            key: output.path)
        {
            try LocalFile.writeAtomically(converted.data, to: output.path, mayReplace: mayCommit)
            return Result(pixelSize: converted.pixelSize, frameCount: converted.frameCount, bytes: converted.data.count)
        }
        var image = try coders.decode(data, options: decodeOptions)
        if let transformer {
            guard let transformed = transformer.transform(image, key: output.path) else {
                throw WebImageError.badImageData(
                    reason: "the transform \(transformer.transformerKey) is impossible for this \(image.width)x\(image.height) image")
            }
            image = transformed
        }
        return try write(image, to: output, mayCommit: mayCommit)
    }

    /// Encodes `image` as ``format`` and writes it to `output` atomically.
    func write(_ image: Image, to output: URL, mayCommit: (() -> Bool)? = nil) throws -> Result {
        let encoded = try coders.encode(image, format: format, options: encodeOptions)
        try LocalFile.writeAtomically(encoded, to: output.path, mayReplace: mayCommit)
        return Result(pixelSize: image.pixelSize, frameCount: image.frames.count, bytes: encoded.count)
    }
}
