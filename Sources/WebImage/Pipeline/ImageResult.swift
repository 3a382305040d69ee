import Foundation

/// What a load delivers (SPEC M-11): the image, its bytes when available, where it came from.
public struct ImageResult: Sendable {
    /// The decoded (and transformed) image; `nil` with `avoidDecodeImage`, or when the request
    /// was not allowed to download and nothing was cached (SPEC M-8).
    public var image: Image?
    /// The encoded bytes, when the stage that produced the image had them.
    public var data: Data?
    /// Where the image came from: `.memory`, `.disk`, or `.none` (downloaded).
    public var cacheType: ImageCacheType
    /// The requested URL.
    public var url: URL
    /// `false` for a progressive partial image (more of the same image follows); `true` for a
    /// complete image.
    public var isFinal: Bool

    public init(image: Image?, data: Data? = nil, cacheType: ImageCacheType, url: URL, isFinal: Bool = true) {
        self.image = image
        self.data = data
        self.cacheType = cacheType
        self.url = url
        self.isFinal = isFinal
    }
}

/// Progress of a download: bytes received, bytes expected (`nil` when the server did not say),
/// and the URL.
public typealias ImageProgressHandler = @Sendable (_ receivedSize: Int64, _ expectedSize: Int64?, _ url: URL) -> Void

/// The completion of a load. It runs exactly once with the outcome — success, error, or
/// ``/WebImageCore/WebImageError/cancelled`` — with two exceptions, both SDWebImage's:
/// - progressive loads first deliver partial images (``ImageResult/isFinal`` `false`);
/// - a `refreshCached` load with a cached image delivers that image at once, then a second time
///   only if the server sends a different image (a 304 Not Modified delivers nothing more).
public typealias ImageCompletionHandler = @Sendable (Result<ImageResult, WebImageError>) -> Void
