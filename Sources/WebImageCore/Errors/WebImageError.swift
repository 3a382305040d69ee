/// The one error type of swift-web-image. Its cases mirror SDWebImage's error codes (SPEC M-12)
/// plus the limits this library enforces. Every API that throws throws a `WebImageError`.
public enum WebImageError: Error, Sendable, CustomStringConvertible {
    /// The URL was nil, empty or could not be parsed.
    case invalidURL(String?)
    /// The bytes are not a decodable image: truncated, corrupt, or not an image at all.
    case badImageData(reason: String)
    /// The data is (or may be) an image, but no registered coder handles this format or
    /// this variant of it (for example 12-bit JPEG).
    case unsupportedFormat(ImageFormat, reason: String)
    /// The image is larger than a configured limit (pixel count, frames, animation size);
    /// refused before any pixel memory was allocated.
    case imageTooLarge(reason: String)
    /// Encoding failed (no encoder for the format, or the encoder reported an error).
    case encodingFailed(reason: String)
    /// The server answered 304 Not Modified to a revalidation request.
    case cacheNotModified
    /// The URL failed before and is on the failed-URL list (use `retryFailed`).
    case blackListed
    /// The download could not be set up (e.g. a request modifier returned nil).
    case invalidDownloadOperation(reason: String)
    /// The response status code is not acceptable.
    case invalidDownloadStatusCode(Int)
    /// The request or the caller's task was cancelled.
    case cancelled
    /// The response was not usable (for example a response modifier rejected it).
    case invalidDownloadResponse(reason: String)
    /// The response's content type is not acceptable.
    case invalidDownloadContentType(String?)
    /// The response is larger than the configured maximum.
    case responseTooLarge(limit: Int64)
    /// A network-level failure (timeout, connection refused, reset, DNS, TLS, …).
    case transport(TransportError)
    /// A file-system operation of a cache failed.
    case cacheIO(reason: String)
    /// The downloader's address policy refused the connection (SPEC R-1): `host` resolved to
    /// `address`, which `reason` names the class or rule of (`loopback`, `link-local`, `in the
    /// denied range 10.0.0.0/8`, …). No byte was sent to that address.
    case addressRefused(host: String, address: String, reason: String)
    /// No loader handles the URL's scheme (`ftp`, `gopher`, `javascript`, …; SPEC R-5), or a
    /// server redirected to such a URL. SDWebImage completes such a load with no image and no
    /// error; this library fails it.
    case unsupportedURL(scheme: String)
    /// A deadline ran out: the idle timeout, a download's total deadline, a load's total
    /// deadline (SPEC R-2) or a vector document's drawing budget; ``Deadline`` says which and how long it was. Transient: it never puts
    /// a URL on the failed-URL list.
    case timedOut(Deadline)
    /// A local file could not be read or written; `reason` says why in plain words (it is a
    /// directory or a FIFO, it does not exist, permission denied, the directory does not accept
    /// new files, …).
    case fileAccess(path: String, reason: String)
    /// A compressed (`gzip`/`deflate`) response body expands to more than the configured
    /// maximum response size; refused while it streams.
    case decompressedResponseTooLarge(encoding: String, limit: Int64)
    /// Two images cannot be compared (``SSIMULACRA2``): their sizes differ, or they are smaller
    /// than the metric measures; `reason` says which, with the sizes.
    case comparisonRefused(reason: String)

    public var description: String {
        switch self {
        case .invalidURL(let url): "invalid URL: \(url ?? "nil")"
        case .badImageData(let reason): "bad image data: \(reason)"
        case .unsupportedFormat(let format, let reason): "unsupported format \(format): \(reason)"
        case .imageTooLarge(let reason): "image too large: \(reason)"
        case .encodingFailed(let reason): "encoding failed: \(reason)"
        case .cacheNotModified: "cache not modified (HTTP 304)"
        case .blackListed: "URL is on the failed-URL list"
        case .invalidDownloadOperation(let reason): "invalid download operation: \(reason)"
        case .invalidDownloadStatusCode(let code): "invalid download status code \(code)"
        case .cancelled: "cancelled"
        case .invalidDownloadResponse(let reason): "invalid download response: \(reason)"
        case .invalidDownloadContentType(let type): "invalid download content type: \(type ?? "none")"
        case .responseTooLarge(let limit): "response larger than \(limit) bytes"
        case .transport(let error): "transport error: \(error)"
        case .cacheIO(let reason): "cache I/O error: \(reason)"
        case .addressRefused(let host, let address, let reason):
            "refused to connect to \(Self.hostAndAddress(host, address)) by the address policy: \(reason)"
        case .unsupportedURL(let scheme): "unsupported URL: no loader handles the \"\(scheme)\" scheme"
        case .timedOut(let deadline): "timed out: \(deadline)"
        case .fileAccess(let path, let reason): "\(path): \(reason)"
        case .decompressedResponseTooLarge(let encoding, let limit):
            "the server's \(encoding)-compressed body expands to more than the response size limit of \(DecodeLimits.formatBytes(Int(clamping: limit)))"
        case .comparisonRefused(let reason): "cannot compare the images: \(reason)"
        }
    }

    /// `host (address)`, or one of them when the other is empty or the same.
    private static func hostAndAddress(_ host: String, _ address: String) -> String {
        if address.isEmpty || host == address || host == "[\(address)]" { return host.isEmpty ? address : host }
        return host.isEmpty ? address : "\(host) (\(address))"
    }

    /// A short stable name for the case (for logs, metrics and JSON output).
    public var code: String {
        switch self {
        case .invalidURL: "invalidURL"
        case .badImageData: "badImageData"
        case .unsupportedFormat: "unsupportedFormat"
        case .imageTooLarge: "imageTooLarge"
        case .encodingFailed: "encodingFailed"
        case .cacheNotModified: "cacheNotModified"
        case .blackListed: "blackListed"
        case .invalidDownloadOperation: "invalidDownloadOperation"
        case .invalidDownloadStatusCode: "invalidDownloadStatusCode"
        case .cancelled: "cancelled"
        case .invalidDownloadResponse: "invalidDownloadResponse"
        case .invalidDownloadContentType: "invalidDownloadContentType"
        case .responseTooLarge: "responseTooLarge"
        case .transport: "transport"
        case .cacheIO: "cacheIO"
        case .addressRefused: "addressRefused"
        case .unsupportedURL: "unsupportedURL"
        case .timedOut: "timedOut"
        case .fileAccess: "fileAccess"
        case .decompressedResponseTooLarge: "decompressedResponseTooLarge"
        case .comparisonRefused: "comparisonRefused"
        }
    }
}

/// A network-level failure, classified so that the failed-URL list can tell transient errors
/// (which never block a URL) from permanent ones.
public struct TransportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure it was.
    public enum Kind: String, Sendable, Hashable {
        case timedOut
        case notConnected
        case cannotFindHost
        case cannotConnectToHost
        case connectionLost
        case tooManyRedirects
        case tls
        case other
    }

    public var kind: Kind
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// Whether the failure is transient (SPEC M-3): such failures never put a URL on the
    /// failed-URL list.
    public var isTransient: Bool {
        switch kind {
        case .timedOut, .notConnected, .cannotFindHost, .cannotConnectToHost, .connectionLost: true
        case .tooManyRedirects, .tls, .other: false
        }
    }

    public var description: String { "\(kind.rawValue): \(message)" }
}
