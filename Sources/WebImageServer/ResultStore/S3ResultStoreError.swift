/// Why an ``S3ResultStore`` could not read or write: the store and endpoint, and what failed
/// (``underlying``: a `WebImageError` naming S3's refusal or the transport
/// failure).
public struct S3ResultStoreError: Error, Sendable, CustomStringConvertible {
    /// The store, `s3://bucket/prefix`.
    public let store: String
    /// The endpoint its requests went to.
    public let endpoint: String
    /// What failed.
    public let underlying: any Error

    public var description: String { "S3 result store \(store) at \(endpoint): \(underlying)" }
}
