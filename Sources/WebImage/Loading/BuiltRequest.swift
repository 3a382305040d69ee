import AsyncHTTPClient
import Foundation

/// A request ready for the HTTP client, with what the transfer must know about how it was made.
struct BuiltRequest {
    let request: HTTPClient.Request
    /// The origin the request's redirects must stay on, set when the downloader's
    /// ``DownloaderRequestModifier`` changed the request (its headers may be credentials);
    /// `nil` when redirects may go anywhere the address policy allows.
    let guardedOrigin: URL?
    /// Whether the downloader's modifier mapped a URL of one of its
    /// ``DownloaderRequestModifier/mappedSchemes`` to this request: it then goes to the
    /// operator's endpoint without the address policy's egress proxy.
    let mapped: Bool

    /// Whether `a` and `b` have the same scheme, host and port (a missing port is the
    /// scheme's default).
    static func sameOrigin(_ a: URL, _ b: URL) -> Bool {
        guard let schemeA = a.scheme?.lowercased(), let schemeB = b.scheme?.lowercased(), schemeA == schemeB,
            let hostA = a.host?.lowercased(), let hostB = b.host?.lowercased(), hostA == hostB
        else { return false }
        return effectivePort(a, scheme: schemeA) == effectivePort(b, scheme: schemeB)
    }

    private static func effectivePort(_ url: URL, scheme: String) -> Int? {
        url.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : nil)
    }
}
