import Foundation

/// A request about to be sent, as a ``RequestModifier`` sees and changes it.
public struct ImageDownloadRequest: Sendable {
    /// The URL to fetch.
    public var url: URL
    /// The HTTP method (default `GET`).
    public var method: String
    /// The header fields to send.
    public var headers: [HTTPHeaderField]

    /// A request for `url`.
    public init(url: URL, method: String = "GET", headers: [HTTPHeaderField] = []) {
        self.url = url
        self.method = method
        self.headers = headers
    }

    /// Sets `name` to `value`, replacing any existing fields of that name; `nil` removes them.
    public mutating func setValue(_ value: String?, forHeader name: String) {
        headers.removeAll { $0.hasName(name) }
        if let value { headers.append(HTTPHeaderField(name: name, value: value)) }
    }

    /// The first value of `name` (case-insensitive).
    public func value(forHeader name: String) -> String? {
        headers.first { $0.hasName(name) }?.value
    }
}

/// Changes a request before it is sent, or returns `nil` to refuse it (the load then fails
/// with ``/WebImageCore/WebImageError/invalidDownloadOperation(reason:)``) (SPEC D-5).
public typealias RequestModifier = @Sendable (ImageDownloadRequest) -> ImageDownloadRequest?

/// Changes a response's metadata before it is checked, or returns `nil` to reject it (the
/// load then fails with ``/WebImageCore/WebImageError/invalidDownloadResponse(reason:)``) (SPEC D-6).
public typealias ResponseModifier = @Sendable (ImageResponseInfo) -> ImageResponseInfo?

/// Transforms the received bytes before decoding (SPEC D-6), for example to decrypt them.
/// Returning `nil` fails the load with ``/WebImageCore/WebImageError/badImageData(reason:)``.
public typealias DownloadDecryptor = @Sendable (Data, ImageResponseInfo?) -> Data?

private enum RequestModifierKey: WebImageContextKey { typealias Value = RequestModifier }
private enum ResponseModifierKey: WebImageContextKey { typealias Value = ResponseModifier }
private enum DecryptorKey: WebImageContextKey { typealias Value = DownloadDecryptor }
private enum DownloadPriorityKey: WebImageContextKey { typealias Value = DownloadPriority }
private enum CachedResponseValidatorsKey: WebImageContextKey { typealias Value = HTTPCacheValidators }
private enum ImageLoaderKey: WebImageContextKey { typealias Value = any ImageLoader }
private enum DeliversBytesOnlyKey: WebImageContextKey { typealias Value = Bool }

extension WebImageContext {
    /// Set by ``ImageManager`` on the context it hands its loader: the library's loaders then
    /// deliver the final bytes undecoded (partial images still decoded, SPEC D-8), and the
    /// manager's decode stage decodes them. Loaders that do not read it deliver images as
    /// they like; the decode stage passes an image through.
    var deliversBytesOnly: Bool {
        get { self[DeliversBytesOnlyKey.self] ?? false }
        set { self[DeliversBytesOnlyKey.self] = newValue ? true : nil }
    }

    /// Changes the request before it is sent (or refuses it with `nil`).
    ///
    /// Coalesced callers share one request: the modifier of the caller that created the
    /// download applies; later callers of the same URL join that download as it is.
    public var requestModifier: RequestModifier? {
        get { self[RequestModifierKey.self] }
        set { self[RequestModifierKey.self] = newValue }
    }
    /// Changes or rejects the response metadata before the status/content-type checks.
    public var responseModifier: ResponseModifier? {
        get { self[ResponseModifierKey.self] }
        set { self[ResponseModifierKey.self] = newValue }
    }
    /// Transforms the received bytes before decoding.
    public var decryptor: DownloadDecryptor? {
        get { self[DecryptorKey.self] }
        set { self[DecryptorKey.self] = newValue }
    }
    /// The download priority, overriding `highPriority`/`lowPriority` options.
    public var downloadPriority: DownloadPriority? {
        get { self[DownloadPriorityKey.self] }
        set { self[DownloadPriorityKey.self] = newValue }
    }
    /// Validators of the cached copy (SPEC D-10): the downloader sends them as
    /// `If-None-Match` / `If-Modified-Since`; a 304 answer completes with
    /// ``/WebImageCore/WebImageError/cacheNotModified``.
    public var cachedResponseValidators: HTTPCacheValidators? {
        get { self[CachedResponseValidatorsKey.self] }
        set { self[CachedResponseValidatorsKey.self] = newValue }
    }
    /// The loader to use instead of the manager's.
    public var imageLoader: (any ImageLoader)? {
        get { self[ImageLoaderKey.self] }
        set { self[ImageLoaderKey.self] = newValue }
    }
}
