import Foundation

/// What the service answers one request with, independent of the HTTP server.
public struct ImageServiceResponse: Sendable {
    /// HTTP status.
    public var status: Int
    /// Response headers (name, value).
    public var headers: [(String, String)]
    /// The body (empty for 304 and HEAD).
    public var body: Data

    /// The value of header `name` (case-insensitive), if present.
    public func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }

    /// A plain-text error response.
    static func error(_ error: ImageServiceError) -> ImageServiceResponse {
        var headers = [("Content-Type", "text/plain; charset=utf-8"), ("Cache-Control", "no-store")]
        if case let .queueFull(retryAfter) = error { headers.append(("Retry-After", String(retryAfter))) }
        return ImageServiceResponse(status: error.status, headers: headers, body: Data((error.description + "\n").utf8))
    }
}
