import HTTPTypes

/// What a request path answered with last time, so the next identical request is served from
/// memory without parsing, verifying, fetching or hashing anything (the result-cache hit path).
struct KnownAnswer: Sendable {
    /// The result's key in the cache (its ETag).
    var etag: String
    /// The 200 response's headers, `Content-Length` and `X-Request-ID` aside.
    var fields: HTTPFields
    /// The 304 response's headers.
    var notModifiedFields: HTTPFields
    /// Until when the source may be taken as unchanged (its revalidation time).
    var freshUntil: ContinuousClock.Instant
    /// The URL's `expires` option (Unix seconds), if any: after it the request is refused.
    var expires: Int64?

    /// An estimate of the memory this answer holds: its header names and values plus a fixed
    /// overhead per field and per answer (the fields' storage, strings and the entry itself).
    var estimatedBytes: Int {
        var bytes = 256
        for field in fields { bytes += 64 + field.name.rawName.utf8.count + field.value.utf8.count }
        for field in notModifiedFields { bytes += 64 + field.name.rawName.utf8.count + field.value.utf8.count }
        return bytes
    }
}
