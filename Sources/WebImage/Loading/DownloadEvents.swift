import Foundation

/// What happened to a download, for observers (SPEC D-9).
public enum DownloadEvent: Sendable {
    /// The request was sent (the download got a slot).
    case started(url: URL)
    /// The response head arrived (after redirects).
    case receivedResponse(url: URL, response: ImageResponseInfo)
    /// The body arrived completely and passed the checks.
    case finished(url: URL, metrics: DownloadMetrics)
    /// The download failed or was cancelled.
    case failed(url: URL, error: WebImageError, metrics: DownloadMetrics)
}

/// Receives ``DownloadEvent``s of every download of an ``ImageDownloader``. Called on the thread
/// the event happened on — the one that started the download, the request's NIO event loop, or
/// a processing-pool thread; keep it short.
public typealias DownloadObserver = @Sendable (DownloadEvent) -> Void

/// Transfer numbers of one download (SPEC D-9).
public struct DownloadMetrics: Sendable, Hashable {
    /// Body bytes received (before any decryptor).
    public var receivedBytes: Int64 = 0
    /// The expected body size from `Content-Length`, if given.
    public var expectedBytes: Int64?
    /// When the request was sent.
    public var startDate: Date?
    /// When the response head arrived.
    public var responseDate: Date?
    /// When the body finished or the download failed.
    public var endDate: Date?
    /// Redirects followed.
    public var redirectCount: Int = 0
    /// The status code of the final response.
    public var statusCode: Int?
    /// Body bytes that came from an earlier, interrupted download of the URL (SPEC X-3): the
    /// response continued it with `206 Partial Content`. Included in ``receivedBytes``.
    public var resumedBytes: Int64 = 0

    /// Empty metrics.
    public init() {}

    /// Seconds from request to end, if both are known.
    public var duration: Double? {
        guard let startDate, let endDate else { return nil }
        return endDate.timeIntervalSince(startDate)
    }
}
