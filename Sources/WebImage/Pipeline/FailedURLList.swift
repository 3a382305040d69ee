import Foundation
import Synchronization

/// The failed-URL list ("blacklist", SPEC M-3): URLs whose load failed permanently.
///
/// A listed URL fails at once with ``/WebImageCore/WebImageError/blackListed`` unless the request has
/// ``WebImageOptions/retryFailed``; a success with `retryFailed` removes it. Transient failures
/// never list a URL: cancellation, timeouts, "not connected", "cannot find/connect to host" and
/// "connection lost" (``/WebImageCore/TransportError/isTransient``), nor failures the loader declines to block.
public final class FailedURLList: Sendable {
    private let urls = Mutex<Set<URL>>([])

    /// An empty list.
    public init() {}

    /// Whether `url` is listed.
    public func contains(_ url: URL) -> Bool {
        urls.withLock { $0.contains(url) }
    }

    /// Number of listed URLs.
    public var count: Int { urls.withLock { $0.count } }

    /// Records a failure of `url` with `error` if it is a permanent one (see ``shouldBlock(_:)``)
    /// and `loaderAllows` (the loader's `shouldBlockFailedURL` answer). Returns whether the URL
    /// was listed.
    @discardableResult
    public func recordFailure(_ url: URL, error: WebImageError, loaderAllows: Bool = true) -> Bool {
        guard loaderAllows, Self.shouldBlock(error) else { return false }
        urls.withLock { _ = $0.insert(url) }
        return true
    }

    /// Removes `url` (after a successful load with `retryFailed`, or by hand).
    public func remove(_ url: URL) {
        urls.withLock { _ = $0.remove(url) }
    }

    /// Removes every URL.
    public func removeAll() {
        urls.withLock { $0.removeAll() }
    }

    /// Whether `error` is a permanent failure that lists a URL. Cancellation, transient network
    /// errors and the list's own `blackListed` never do.
    public static func shouldBlock(_ error: WebImageError) -> Bool {
        switch error {
        case .cancelled, .blackListed, .cacheNotModified, .timedOut:
            return false
        case .transport(let transport):
            return !transport.isTransient
        default:
            return true
        }
    }
}
