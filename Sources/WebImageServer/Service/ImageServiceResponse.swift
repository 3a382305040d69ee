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

    /// An error response: one line of plain text, or `{"status":…,"message":"…"}` when the
    /// client asks for JSON (`Accept: application/json`).
    static func error(_ error: ImageServiceError, json: Bool = false) -> ImageServiceResponse {
        var headers = [("Cache-Control", "no-store")]
        if case let .queueFull(retryAfter) = error { headers.append(("Retry-After", String(retryAfter))) }
        if json {
            let object: [String: any Sendable] = ["status": error.status, "message": error.description]
            let body = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
            headers.insert(("Content-Type", "application/json"), at: 0)
            return ImageServiceResponse(status: error.status, headers: headers, body: body)
        }
        headers.insert(("Content-Type", "text/plain; charset=utf-8"), at: 0)
        return ImageServiceResponse(status: error.status, headers: headers, body: Data((error.description + "\n").utf8))
    }
}
