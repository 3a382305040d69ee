import Foundation
import HTTPTypes
import NIOCore

/// The service's answer in the HTTP server's terms: headers as `HTTPFields`, the body as the
/// buffer that is sent (a cached result's buffer is shared, not copied).
struct ServiceReply: Sendable {
    var status: Int
    var fields: HTTPFields
    var body: ByteBuffer

    /// An error response: one line of plain text, or `{"status":…,"message":"…"}` when the
    /// client asks for JSON (`Accept: application/json`).
    static func error(_ error: ImageServiceError, json: Bool = false) -> ServiceReply {
        var fields = HTTPFields()
        if json {
            let object: [String: any Sendable] = ["status": error.status, "message": error.description]
            let body = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
            fields[.contentType] = "application/json"
            fields[.cacheControl] = "no-store"
            if let retryAfter = error.retryAfter { fields[.retryAfter] = String(retryAfter) }
            return ServiceReply(status: error.status, fields: fields, body: ByteBuffer(bytes: body))
        }
        fields[.contentType] = "text/plain; charset=utf-8"
        fields[.cacheControl] = "no-store"
        if let retryAfter = error.retryAfter { fields[.retryAfter] = String(retryAfter) }
        return ServiceReply(status: error.status, fields: fields, body: ByteBuffer(string: error.description + "\n"))
    }
}
