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
        var image: Image
        var bytes: Int
    }

    /// Decodes `data`, applies ``transformer``, encodes as ``format`` and writes to `output`
    /// atomically (a temporary file renamed into place, so a reader never sees half a file).
    /// - Throws: the decoder's or encoder's ``WebImageError``; `badImageData` when the transform
    ///   is impossible for this image; `cacheIO` when writing fails.
    /// - Parameter mayCommit: asked just before the output is renamed into place; `false`
    ///   (`--max-time` ran out) drops the output and throws `cancelled`.
    func convert(_ data: Data, to output: URL, mayCommit: (() -> Bool)? = nil) throws -> Result {
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
        return Result(image: image, bytes: encoded.count)
    }
}
