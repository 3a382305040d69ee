import Foundation
import Synchronization

/// A minimal in-memory cookie store for `handleCookies` (SPEC D-5).
///
/// Linux has no system cookie storage that AsyncHTTPClient uses, so the downloader keeps its
/// own: cookies from `Set-Cookie` are stored per host (name → value) and sent back as one
/// `Cookie` header to the same host. Honoured: `Max-Age` ≤ 0 removes a cookie. Ignored:
/// `Expires`, `Path`, `Domain` (exact host only), `Secure`, `HttpOnly`, `SameSite` (cookies
/// live as long as the jar). Nothing is persisted.
public final class CookieJar: Sendable {
    private let cookies = Mutex<[String: [String: String]]>([:])
    /// Bounds per host and in total, so a hostile server cannot grow the jar without limit.
    private static let maxCookiesPerHost = 64
    private static let maxHosts = 256

    public init() {}

    /// The `Cookie` header value for `url`, or `nil` when there are none.
    public func cookieHeader(for url: URL) -> String? {
        guard let host = url.host?.lowercased() else { return nil }
        let pairs = cookies.withLock { $0[host] } ?? [:]
        guard !pairs.isEmpty else { return nil }
        return pairs.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "; ")
    }

    /// Stores the cookies of `Set-Cookie` header values received from `url`.
    public func store(setCookieHeaders values: [String], from url: URL) {
        guard let host = url.host?.lowercased(), !values.isEmpty else { return }
        cookies.withLock { jar in
            var pairs = jar[host] ?? [:]
            for value in values.prefix(Self.maxCookiesPerHost) {
                let attributes = value.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
                guard let first = attributes.first, let equals = first.firstIndex(of: "=") else { continue }
                let name = String(first[..<equals])
                guard !name.isEmpty else { continue }
                let expired = attributes.dropFirst().contains { attribute in
                    attribute.lowercased().hasPrefix("max-age=") && (Int(attribute.dropFirst(8)) ?? 1) <= 0
                }
                if expired {
                    pairs[name] = nil
                } else if pairs.count < Self.maxCookiesPerHost || pairs[name] != nil {
                    pairs[name] = String(first[first.index(after: equals)...])
                }
            }
            if jar[host] != nil || jar.count < Self.maxHosts { jar[host] = pairs }
        }
    }

    /// Removes every cookie.
    public func removeAll() {
        cookies.withLock { $0.removeAll() }
    }
}
