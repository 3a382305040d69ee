import Foundation

/// Something that turns encoded bytes into an ``Image`` (SPEC C-1).
///
/// Decoders are synchronous and thread-safe: the pipeline calls them from its own bounded
/// executor, and no decoder shares a codec handle between calls.
public protocol ImageDecoding: Sendable {
    /// Whether this decoder handles `data` (decided from its first bytes).
    func canDecode(_ data: Data) -> Bool
    /// Decodes `data`.
    /// - Throws: ``WebImageError`` — `badImageData`, `unsupportedFormat` or `imageTooLarge`.
    func decode(_ data: Data, options: DecodeOptions) throws -> Image
    /// Reads size, frame count, orientation and alpha from the header, without decoding pixels.
    /// - Throws: ``WebImageError`` — `badImageData` or `unsupportedFormat`.
    func readMetadata(_ data: Data) throws -> ImageMetadata
}

extension ImageDecoding {
    public func readMetadata(_ data: Data) throws -> ImageMetadata {
        throw WebImageError.unsupportedFormat(ImageFormat.detect(data), reason: "\(type(of: self)) reads no metadata")
    }
}

/// Something that turns an ``Image`` into encoded bytes (SPEC C-1).
public protocol ImageEncoding: Sendable {
    /// Whether this encoder writes `format`.
    func canEncode(_ format: ImageFormat) -> Bool
    /// Encodes `image` as `format`.
    /// - Throws: ``WebImageError/encodingFailed(reason:)`` or `unsupportedFormat`.
    func encode(_ image: Image, format: ImageFormat, options: EncodeOptions) throws -> Data
}

/// A coder as the ``CodersManager`` registers it: a decoder that may also encode.
/// Decode-only coders keep the default `canEncode` (false).
public protocol ImageCoder: ImageDecoding, ImageEncoding {}

extension ImageCoder {
    public func canEncode(_ format: ImageFormat) -> Bool { false }

    public func encode(_ image: Image, format: ImageFormat, options: EncodeOptions) throws -> Data {
        throw WebImageError.unsupportedFormat(format, reason: "\(type(of: self)) does not encode")
    }
}

/// A coder that can show an image while its bytes are still arriving (SPEC C-1, D-8).
public protocol ProgressiveImageDecoding: ImageCoder {
    /// Whether progressive decoding is possible for data that starts like `header`.
    func canDecodeIncrementally(_ header: Data) -> Bool
    /// A fresh incremental decoder; the loader uses one instance for a whole download.
    func makeIncrementalDecoder(options: DecodeOptions) -> any IncrementalImageDecoder
}

/// The state of one progressive decode. Not shared between threads: its owner (one download)
/// calls it serially.
public protocol IncrementalImageDecoder: AnyObject {
    /// Feeds all bytes received so far (a growing prefix of the file).
    /// - Parameters:
    ///   - data: every byte received so far, from the start of the file.
    ///   - isComplete: whether `data` is the whole file.
    /// - Returns: a new partial image when there is more to show than at the last call, or the
    ///   complete image when `isComplete`; `nil` when nothing new can be shown yet.
    /// - Throws: only when `isComplete` and the data is not decodable.
    func update(_ data: Data, isComplete: Bool) throws -> Image?
}

/// A coder that can decode the frames of an animation one at a time (SPEC C-1, A-1).
public protocol AnimatedImageDecoding: ImageCoder {
    /// Whether `data` holds an animation (more than one frame) this coder can play.
    func isAnimated(_ data: Data) -> Bool
    /// Opens `data` for lazy frame access; reads the header and frame table only.
    func makeAnimatedSource(_ data: Data, options: DecodeOptions) throws -> any AnimatedImageSource
}

/// Lazy access to the composited frames of an animation. Single owner (not thread-safe).
public protocol AnimatedImageSource: AnyObject {
    /// Canvas size in pixels.
    var canvasSize: PixelSize { get }
    /// Number of frames.
    var frameCount: Int { get }
    /// Loop count; 0 = forever.
    var loopCount: Int { get }
    /// Display duration of frame `index` in seconds (clamped per ``FrameDelay``).
    func duration(ofFrame index: Int) -> Double
    /// The composited canvas of frame `index`. Sequential access is cheapest; seeking back may
    /// decode from the start.
    func frame(at index: Int) throws -> PixelBuffer
}
