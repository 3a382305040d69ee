import Foundation
import Synchronization

/// The ordered registry of coders (SPEC C-2). The coder added last is asked first, so a custom
/// coder added at run time overrides a built-in one for the formats it claims.
///
/// The manager is itself an ``ImageCoder``: decoding asks each coder in priority order.
/// Thread-safe; the list is copied out of the lock before any coder runs.
public final class CodersManager: ImageCoder {
    private let registry: Mutex<[any ImageCoder]>

    /// A manager with `coders`, the **last** of which has the highest priority.
    public init(coders: [any ImageCoder] = []) {
        registry = Mutex(coders)
    }

    /// The coders in the order they are asked (highest priority first).
    public var coders: [any ImageCoder] {
        registry.withLock { Array($0.reversed()) }
    }

    /// Adds `coder` with the highest priority.
    public func addCoder(_ coder: any ImageCoder) {
        registry.withLock { $0.append(coder) }
    }

    /// Removes every coder for which `predicate` is true.
    public func removeCoders(where predicate: (any ImageCoder) -> Bool) {
        registry.withLock { $0.removeAll(where: predicate) }
    }

    /// Removes every coder of type `type`.
    public func removeCoders<C: ImageCoder>(ofType type: C.Type) {
        removeCoders { $0 is C }
    }

    public func canDecode(_ data: Data) -> Bool {
        coders.contains { $0.canDecode(data) }
    }

    /// Decodes with the first coder (in priority order) that can decode `data`.
    /// - Throws: the coder's error, or `unsupportedFormat` / `badImageData` when none can.
    public func decode(_ data: Data, options: DecodeOptions) throws -> Image {
        guard !data.isEmpty else { throw WebImageError.badImageData(reason: "empty data") }
        for coder in coders where coder.canDecode(data) {
            if options.limits.maxDecodedToEncodedRatio != nil {
                try checkRatio(data, coder: coder, options: options)
            }
            return try coder.decode(data, options: options)
        }
        let format = ImageFormat.detect(data)
        if format == .unknown {
            throw WebImageError.badImageData(reason: "not a recognised image format")
        }
        throw WebImageError.unsupportedFormat(format, reason: "no registered coder decodes \(format)")
    }

    /// The decompression-ratio guard (SPEC R-3): what the header says a decode with `options`
    /// will allocate, against the encoded size. Only runs when the guard is on.
    func checkRatio(_ data: Data, coder: any ImageCoder, options: DecodeOptions) throws {
        let metadata = try coder.readMetadata(data)
        let frames = options.firstFrameOnly ? 1 : max(1, metadata.frameCount ?? 1)
        let decoded = DecodeLimits.decodedBytes(frames: frames, of: options.targetSize(for: metadata.pixelSize))
        try options.limits.checkRatio(decodedBytes: decoded, encodedBytes: data.count)
    }

    /// Reads header metadata with the first coder (in priority order) that can decode `data` and
    /// reads metadata for it. When no coder reads the format (none claims the data, or the coder
    /// that claims it reads no metadata), ``ImageHeaderReader`` answers from the header.
    public func readMetadata(_ data: Data) throws -> ImageMetadata {
        guard !data.isEmpty else { throw WebImageError.badImageData(reason: "empty data") }
        for coder in coders where coder.canDecode(data) {
            do {
                return try coder.readMetadata(data)
            } catch WebImageError.unsupportedFormat {
                break  // this coder reads no metadata for these bytes: fall back to the header reader
            }
        }
        return try ImageHeaderReader.read(data)
    }

    public func canEncode(_ format: ImageFormat) -> Bool {
        coders.contains { $0.canEncode(format) }
    }

    /// Encodes with the first coder (in priority order) that can encode `format`.
    public func encode(_ image: Image, format: ImageFormat, options: EncodeOptions) throws -> Data {
        for coder in coders where coder.canEncode(format) {
            return try coder.encode(image, format: format, options: options)
        }
        throw WebImageError.unsupportedFormat(format, reason: "no registered coder encodes \(format)")
    }

    /// The first coder that can decode `data` progressively, if any.
    public func progressiveDecoder(for header: Data) -> (any ProgressiveImageDecoding)? {
        for coder in coders {
            if let progressive = coder as? any ProgressiveImageDecoding, progressive.canDecode(header),
                progressive.canDecodeIncrementally(header)
            {
                return progressive
            }
        }
        return nil
    }

    /// The first coder that can play `data` as an animation, if any.
    public func animatedDecoder(for data: Data) -> (any AnimatedImageDecoding)? {
        for coder in coders {
            if let animated = coder as? any AnimatedImageDecoding, animated.canDecode(data) {
                return animated
            }
        }
        return nil
    }
}
