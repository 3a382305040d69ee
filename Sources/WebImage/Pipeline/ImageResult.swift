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
    /// `false` for an intermediate delivery: a progressive partial image, or the cached copy a
    /// `refreshCached` load shows before revalidating.
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

/// The completion of a load. It runs once with the final outcome — success, error, or
/// ``/WebImageCore/WebImageError/cancelled`` — and may run before that with intermediate results
/// (``ImageResult/isFinal`` `false`): progressive partial images, and the cached image of a
/// `refreshCached` load.
public typealias ImageCompletionHandler = @Sendable (Result<ImageResult, WebImageError>) -> Void
