import Foundation

/// Changes every request an ``ImageDownloader`` sends (SPEC D-5): the downloader-wide
/// counterpart of the per-load ``RequestModifier``, set as
/// ``ImageDownloaderConfiguration/requestModifier``. Signing (``S3RequestSigner``) is one.
///
/// It runs each time the downloader builds a request — the first request of a download, a
/// revalidation (the conditional `GET` that carries `If-None-Match`/`If-Modified-Since`), a
/// resumed download (carrying `Range`/`If-Range`), the one resend after a stale connection and
/// the whole resend after a refused range — always last, after the per-load modifier, so that
/// what it signs is what is sent. Each run sees the headers the downloader set for that request.
///
/// It does not run on redirects: the HTTP client follows them within the request. A redirect to
/// the same origin (scheme, host and port) keeps every header. A redirect to another origin of
/// a request whose headers or URL this modifier changed fails the download with
/// ``/WebImageCore/WebImageError/invalidDownloadResponse(reason:)`` before anything is sent
/// there: the downloader cannot tell which of the changed headers are credentials, so none of
/// them follow.
public protocol DownloaderRequestModifier: Sendable {
    /// URL schemes besides `http` and `https` that ``modify(_:)`` turns into `http`/`https`
    /// requests (`s3`); the downloader then accepts URLs of these schemes. Default: none.
    var mappedSchemes: Set<String> { get }

    /// The request to send instead of `request`. Throwing fails the download with the error
    /// thrown (a thrown error that is not a ``/WebImageCore/WebImageError`` becomes
    /// ``/WebImageCore/WebImageError/invalidDownloadOperation(reason:)``); nothing is sent.
    func modify(_ request: ImageDownloadRequest) throws -> ImageDownloadRequest

    /// Whether the downloader reads the first bytes (at most
    /// ``ImageDownloaderConfiguration/refusalBodyLimit``) of a response with an unacceptable
    /// status to a request this modifier changed, and asks ``refusal(_:body:)`` for the error.
    /// Default `false`.
    var describesRefusals: Bool { get }

    /// The error for a response whose status the downloader does not accept, or `nil` for the
    /// default ``/WebImageCore/WebImageError/invalidDownloadStatusCode(_:)``. `body` holds the
    /// response's first bytes. Called only when ``describesRefusals`` is `true`.
    func refusal(_ response: ImageResponseInfo, body: Data) -> WebImageError?
}

extension DownloaderRequestModifier {
    /// No schemes besides `http` and `https`.
    public var mappedSchemes: Set<String> { [] }
    /// Refused responses keep the default error.
    public var describesRefusals: Bool { false }
    /// The default error.
    public func refusal(_ response: ImageResponseInfo, body: Data) -> WebImageError? { nil }
}
