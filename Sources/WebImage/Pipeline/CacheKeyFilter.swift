import Foundation

/// Maps a URL to its cache key (SPEC M-6), for example to drop a token query item so that
/// signed URLs of one image share one cache entry. Returning `nil` means "do not cache".
public protocol CacheKeyFilter: Sendable {
    /// The cache key for `url`, or `nil` to skip caching.
    func cacheKey(for url: URL) -> String?
}

/// A ``CacheKeyFilter`` made from a closure.
public struct CacheKeyFilterClosure: CacheKeyFilter {
    private let body: @Sendable (URL) -> String?

    /// A filter that calls `body`.
    public init(_ body: @escaping @Sendable (URL) -> String?) {
        self.body = body
    }

    public func cacheKey(for url: URL) -> String? { body(url) }
}

extension CacheKeyFilter where Self == CacheKeyFilterClosure {
    /// A filter that removes the named query items (e.g. `["token", "signature"]`).
    public static func removingQueryItems(_ names: Set<String>) -> CacheKeyFilterClosure {
        CacheKeyFilterClosure { url in
            guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
                return url.absoluteString
            }
            let kept = components.queryItems?.filter { !names.contains($0.name) }
            components.queryItems = (kept?.isEmpty ?? true) ? nil : kept
            return components.url?.absoluteString ?? url.absoluteString
        }
    }
}

private enum CacheKeyFilterKey: WebImageContextKey { typealias Value = any CacheKeyFilter }

extension WebImageContext {
    /// The filter that turns this request's URL into its cache key (default: the absolute URL).
    public var cacheKeyFilter: (any CacheKeyFilter)? {
        get { self[CacheKeyFilterKey.self] }
        set { self[CacheKeyFilterKey.self] = newValue }
    }

    /// The cache key of `url` for this context: the filter's answer, else `url.absoluteString`
    /// (SPEC M-6). `nil` when the filter declines.
    public func cacheKey(for url: URL) -> String? {
        if let filter = cacheKeyFilter { return filter.cacheKey(for: url) }
        return url.absoluteString
    }
}
