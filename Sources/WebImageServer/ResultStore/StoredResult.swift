import Foundation

/// A rendered result as a ``ResultStore`` keeps it: the encoded image, the key it was rendered
/// for, and what its answer needs that cannot be computed again without the source.
public struct StoredResult: Sendable, Equatable {
    /// The key the result was rendered for. An entry found under another key (a copy or a
    /// restore that put it in the wrong place) is not that key's answer: the service reads it
    /// as a miss and counts it in `webimage_result_store_key_mismatches_total`.
    public var key: ResultStoreKey
    /// The encoded image.
    public var body: Data
    /// Its media type (`image/webp`).
    public var contentType: String
    /// The answer's strong `ETag` (made from the source's bytes, the options and the format).
    public var etag: String
    /// The source's `Last-Modified`, if it had one.
    public var lastModified: String?
    /// When the entry stops being served: written at + the service's `ttl`.
    public var expiresAt: Date

    /// A result with all its parts.
    public init(key: ResultStoreKey, body: Data, contentType: String, etag: String, lastModified: String?, expiresAt: Date) {
        self.key = key
        self.body = body
        self.contentType = contentType
        self.etag = etag
        self.lastModified = lastModified
        self.expiresAt = expiresAt
    }
}
