import Foundation

/// Something that turns a URL into an image: the network downloader, a file loader, or a
/// custom source (SPEC D-1). ``LoadersManager`` chains several.
///
/// Under an ``ImageManager``, decoding is the manager's own stage: a final result that
/// carries an image is that image (the decode stage is skipped), and one that carries only
/// bytes is decoded by the manager with the load's decode options (the context's
/// ``WebImageContext/imageCoders``, else `CodersManager.shared`), unless the
/// load asked for ``WebImageOptions/avoidDecodeImage``. The library's own loaders answer a
/// manager with bytes and decode only when called directly.
public protocol ImageLoader: Sendable {
    /// Whether this loader handles `url` (decided from its scheme, usually).
    func canRequestImage(for url: URL) -> Bool

    /// Loads `url`.
    ///
    /// - Parameters:
    ///   - url: the image's URL (one this loader can request).
    ///   - options: the request's options (priority, progressive loading, cookies, …).
    ///   - context: the request's typed values (modifiers, decryptor, validators, coders, …).
    ///   - progress: called as bytes arrive (received, expected if known, URL).
    ///   - completed: called with partial results (`finished == false`, only with
    ///     `progressiveLoad`) and then exactly once with the final result or error. A cancelled
    ///     request completes with ``/WebImageCore/WebImageError/cancelled``.
    /// - Returns: a token whose `cancel()` ends this request only.
    func requestImage(
        with url: URL,
        options: WebImageOptions,
        context: WebImageContext,
        progress: ImageLoaderProgress?,
        completed: @escaping ImageLoaderCompletion
    ) -> any ImageLoaderToken

    /// Whether a failure of `url` with `error` should put it on the failed-URL list (SPEC M-3).
    /// The default: never for cancellation, transient transport errors or 304.
    func shouldBlockFailedURL(_ url: URL, error: WebImageError) -> Bool
}

extension ImageLoader {
    public func shouldBlockFailedURL(_ url: URL, error: WebImageError) -> Bool {
        ImageLoaders.defaultShouldBlockFailedURL(error)
    }
}

/// Progress of a load: bytes received, bytes expected (`nil` when unknown), the URL. The
/// downloader calls it on the request's NIO event loop: keep it short (``ImageManager`` only
/// hands the numbers to its callback queue).
public typealias ImageLoaderProgress = @Sendable (_ receivedSize: Int64, _ expectedSize: Int64?, _ url: URL) -> Void

/// The completion of a load: partial results first (progressive), then one final call.
public typealias ImageLoaderCompletion = @Sendable (Result<ImageLoaderResult, WebImageError>) -> Void

/// A running load; cancelling it ends only the request that returned it.
public protocol ImageLoaderToken: Sendable {
    /// Cancels the request. Its completion receives ``/WebImageCore/WebImageError/cancelled`` once, unless
    /// it already completed.
    func cancel()

    /// Changes this request's priority while it is queued or running (live priority). A
    /// loader without a queue ignores it (the default).
    func setPriority(_ priority: DownloadPriority)
}

extension ImageLoaderToken {
    /// Ignored: this loader has no queue to reorder.
    public func setPriority(_ priority: DownloadPriority) {}
}

/// What a loader delivers.
public struct ImageLoaderResult: Sendable {
    /// The decoded image; `nil` with `avoidDecodeImage`, and in the library loaders' answers to
    /// an ``ImageManager`` (its decode stage decodes the bytes).
    public var image: Image?
    /// The bytes received (after any decryptor); for partial results, the bytes so far.
    public var data: Data
    /// The HTTP response, or `nil` for non-HTTP loaders.
    public var response: ImageResponseInfo?
    /// `false` for a progressive partial image; `true` for the final result.
    public var finished: Bool
    /// The coders a library loader would have decoded these bytes with, when it delivered them
    /// undecoded for the manager's decode stage (``WebImageContext/deliversBytesOnly``).
    var coders: CodersManager?
    /// The pool such a loader would have decoded them on.
    var pool: ProcessingPool?
    /// The incremental decoder of the progressive download that delivered these bytes
    /// undecoded: the decode stage finishes it instead of decoding from scratch when its
    /// options match.
    var progressive: ProgressiveDecoding?

    /// A result; `finished` is `false` only for progressive partial images.
    public init(image: Image?, data: Data, response: ImageResponseInfo?, finished: Bool) {
        self.image = image
        self.data = data
        self.response = response
        self.finished = finished
    }
}

/// The parts of an HTTP response the pipeline uses.
public struct ImageResponseInfo: Sendable, Hashable {
    /// The status code (200, 304, …).
    public var statusCode: Int
    /// The URL finally answered (after redirects).
    public var url: URL?
    /// All header fields, in order, names as received.
    public var headers: [HTTPHeaderField]

    /// Response metadata.
    public init(statusCode: Int, url: URL?, headers: [HTTPHeaderField]) {
        self.statusCode = statusCode
        self.url = url
        self.headers = headers
    }

    /// The first value of the header `name` (case-insensitive).
    public func value(forHeader name: String) -> String? {
        headers.first { $0.hasName(name) }?.value
    }

    /// The `Content-Type` header.
    public var contentType: String? { value(forHeader: "Content-Type") }
    /// The `Content-Type` without parameters, lowercased (`image/png`).
    public var mimeType: String? {
        guard let contentType, let type = contentType.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first else {
            return nil
        }
        return HTTPHeaderField.trimmingOptionalWhitespace(type).lowercased()
    }
    /// The `Content-Length` header, if valid.
    public var expectedContentLength: Int64? {
        value(forHeader: "Content-Length").flatMap { Int64(HTTPHeaderField.trimmingOptionalWhitespace($0)) }
    }
    /// The cache validators this response carries (`ETag`, `Last-Modified`), for revalidation.
    public var validators: HTTPCacheValidators {
        HTTPCacheValidators(entityTag: value(forHeader: "ETag"), lastModified: value(forHeader: "Last-Modified"))
    }
}

/// One HTTP header field.
public struct HTTPHeaderField: Sendable, Hashable {
    /// The field name as sent or received (compare case-insensitively).
    public var name: String
    /// The field value.
    public var value: String

    /// A field `name: value`.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// The validators of a cached response (SPEC D-10): sent as `If-None-Match` /
/// `If-Modified-Since` so the server can answer 304 Not Modified.
public struct HTTPCacheValidators: Sendable, Hashable {
    /// The `ETag` of the cached response.
    public var entityTag: String?
    /// The `Last-Modified` of the cached response.
    public var lastModified: String?

    /// Validators; either may be absent.
    public init(entityTag: String? = nil, lastModified: String? = nil) {
        self.entityTag = entityTag
        self.lastModified = lastModified
    }

    /// Whether there is nothing to send.
    public var isEmpty: Bool { entityTag == nil && lastModified == nil }
}

/// Helpers shared by loaders.
public enum ImageLoaders {
    /// The default failed-URL rule: cancellation, 304 and transient transport errors
    /// (timeouts, lost connections, DNS, refused connections) never block a URL.
    public static func defaultShouldBlockFailedURL(_ error: WebImageError) -> Bool {
        FailedURLList.shouldBlock(error)
    }

    /// The error of a URL no loader handles (SPEC R-5): `unsupportedURL` naming its scheme
    /// (lower case), or `invalidURL` when it has none.
    public static func unsupportedURLError(_ url: URL) -> WebImageError {
        guard let scheme = url.scheme, !scheme.isEmpty else { return .invalidURL(url.absoluteString) }
        return .unsupportedURL(scheme: scheme.lowercased())
    }
}
