import Foundation
import WebImage

/// A fetched source: its bytes and an identity for ETags.
struct SourceImage: Sendable {
    /// The bytes, shared by the copies of this value (``SourcesInUse``).
    var bytes: SourceBytes
    /// The source file.
    var data: Data { bytes.data }
    /// Its format, detected once when the bytes arrived.
    var format: ImageFormat { bytes.format }
    /// Hex SHA-256 of the bytes: the source's identity in ETags and result keys.
    var identity: String
    /// The origin's `Last-Modified`, if any.
    var lastModified: String?
    /// Where it came from, for metrics: `origin`, `disk`, `local`.
    var layer: String
    /// Seconds from now during which the source counts as unchanged (the rest of its
    /// revalidation period): results made from it are reused for that long without asking
    /// the origin (SPEC V-8's result-cache hit path).
    var freshFor: Double

    init(bytes: SourceBytes, identity: String, lastModified: String?, layer: String, freshFor: Double) {
        self.bytes = bytes
        self.identity = identity
        self.lastModified = lastModified
        self.layer = layer
        self.freshFor = freshFor
    }

    init(data: Data, identity: String, lastModified: String?, layer: String, freshFor: Double) {
        self.init(bytes: SourceBytes(data), identity: identity, lastModified: lastModified, layer: layer, freshFor: freshFor)
    }
}
