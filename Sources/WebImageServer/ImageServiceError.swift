/// Why the image service refused or failed a request, each with its HTTP status (SPEC V-7).
///
/// Messages are short plain words safe to show a client: they never carry a stack trace, a
/// file path under the local root or an internal address beyond what the client sent.
public enum ImageServiceError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The URL's options could not be parsed: `option` names the processing option (or URL
    /// part) and `reason` says what is wrong with it. 400.
    case badOption(option: String, reason: String)
    /// The URL is not of the form `/{signature}/{options}/{source}`. 400.
    case badURL(String)
    /// The signature is missing, malformed or does not match. 403.
    case badSignature
    /// The URL's `expires` time has passed. 403.
    case expired
    /// The source is not allowed (allow-list, local root, scheme, address policy). 403.
    case sourceNotAllowed(String)
    /// The source does not exist (HTTP 404/410 at the origin, missing local file). 404.
    case sourceNotFound
    /// The source or its declared resolution/frames exceeds a configured limit. 413.
    case tooLarge(String)
    /// The source is not an image the service can read. 415.
    case notAnImage
    /// The source is an image but could not be decoded or processed. 422.
    case unprocessable(String)
    /// The wait queue is full; try again after `retryAfter` seconds. 429.
    case queueFull(retryAfter: Int)
    /// The origin failed (status, connection, protocol). 502.
    case sourceFailed(String)
    /// The origin or processing did not finish before its deadline. 504.
    case timedOut
    /// The service is shutting down. 503.
    case unavailable
    /// The request could not get room to fetch its source in time for its deadline (held
    /// sources at `max-source-memory` or `fetch-ahead`); try again after `retryAfter` seconds.
    /// 503, answered before the source is fetched.
    case busy(retryAfter: Int)
    /// The origin answered 304 to a revalidation (internal: the cached source is used).
    case notModified

    /// Whether the error means the source could not be had (not found, origin failure or
    /// timeout, too large, not an image): the errors a fallback image answers (SPEC V-7).
    /// Refusals (bad URL, signature, options, source not allowed, address refused) are not.
    public var isSourceFailure: Bool {
        switch self {
        case .sourceNotFound, .sourceFailed, .timedOut, .tooLarge, .notAnImage: true
        default: false
        }
    }

    /// The seconds of the `Retry-After` header: after a 429 or a busy 503.
    public var retryAfter: Int? {
        switch self {
        case let .queueFull(retryAfter), let .busy(retryAfter): retryAfter
        default: nil
        }
    }

    /// The HTTP status code of the error.
    public var status: Int {
        switch self {
        case .badOption, .badURL: 400
        case .badSignature, .expired, .sourceNotAllowed: 403
        case .sourceNotFound: 404
        case .tooLarge: 413
        case .notAnImage: 415
        case .unprocessable: 422
        case .queueFull: 429
        case .sourceFailed: 502
        case .unavailable, .busy: 503
        case .notModified: 304
        case .timedOut: 504
        }
    }

    /// The plain-text body sent to the client.
    public var description: String {
        switch self {
        case let .badOption(option, reason): "bad option \(option): \(reason)"
        case let .badURL(reason): "bad URL: \(reason)"
        case .badSignature: "invalid signature"
        case .expired: "URL expired"
        case let .sourceNotAllowed(reason): "source not allowed: \(reason)"
        case .sourceNotFound: "source not found"
        case let .tooLarge(reason): "source too large: \(reason)"
        case .notAnImage: "source is not a supported image"
        case let .unprocessable(reason): "cannot process image: \(reason)"
        case let .queueFull(retryAfter): "too many requests, retry after \(retryAfter) s"
        case let .sourceFailed(reason): "source failed: \(reason)"
        case .timedOut: "timed out"
        case .unavailable: "service is shutting down"
        case let .busy(retryAfter): "too busy to start before the deadline, retry after \(retryAfter) s"
        case .notModified: "not modified"
        }
    }
}
