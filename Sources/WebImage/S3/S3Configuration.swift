import Foundation

/// Where and how ``S3RequestSigner`` reads objects: the endpoint, region, addressing style,
/// credentials and the buckets allowed (imgproxy's `--s3-endpoint`, `--s3-region`,
/// `--s3-endpoint-use-path-style`, `--s3-allowed-bucket`, `--s3-denied-bucket`).
public struct S3Configuration: Sendable {
    /// The S3 endpoint (`http://127.0.0.1:9000` for MinIO or moto, …), or `nil` for AWS's
    /// regional endpoint `https://s3.<region>.amazonaws.com`.
    public var endpoint: URL?
    /// The region requests are signed for (default `us-east-1`).
    public var region: String
    /// Path-style URLs (`<endpoint>/<bucket>/<key>`) or, with `false`, virtual-host style
    /// (`<bucket>.<endpoint host>/<key>`); `nil` (default) picks path style when ``endpoint``
    /// is set — as S3-compatible servers expect — and virtual-host style for AWS. A bucket name
    /// that cannot be a host name (upper case, `_`, or `.` over https) always goes path-style.
    public var pathStyle: Bool?
    /// The key that signs, or `nil` to send requests unsigned (public objects only).
    public var credentials: AWSCredentials?
    /// Where the credentials came from, for error messages (``AWSSettings/credentialsSource``).
    public var credentialsSource: String
    /// The only buckets that may be read, or `nil` (default) for any.
    public var allowedBuckets: Set<String>?
    /// Buckets that may never be read (checked before ``allowedBuckets``).
    public var deniedBuckets: Set<String>

    /// A configuration from its parts.
    public init(
        endpoint: URL? = nil, region: String = "us-east-1", pathStyle: Bool? = nil, credentials: AWSCredentials?,
        credentialsSource: String = "given credentials", allowedBuckets: Set<String>? = nil, deniedBuckets: Set<String> = []
    ) {
        self.endpoint = endpoint
        self.region = region
        self.pathStyle = pathStyle
        self.credentials = credentials
        self.credentialsSource = credentialsSource
        self.allowedBuckets = allowedBuckets
        self.deniedBuckets = deniedBuckets
    }

    /// A configuration from ``AWSSettings/resolve(environment:homeDirectory:)``: the standard
    /// AWS variables and shared files.
    public init(settings: AWSSettings) {
        self.init(
            endpoint: settings.endpointURL, region: settings.region ?? "us-east-1", pathStyle: settings.pathStyle,
            credentials: settings.credentials, credentialsSource: settings.credentialsSource)
    }

    /// Why `bucket` may not be read, or `nil` when it may.
    public func refusalReason(forBucket bucket: String) -> String? {
        if deniedBuckets.contains(bucket) { return "the bucket '\(bucket)' is denied" }
        if let allowedBuckets, !allowedBuckets.contains(bucket) { return "the bucket '\(bucket)' is not among the allowed buckets" }
        return nil
    }

    /// The endpoint requests go to: ``endpoint``, else AWS's for ``region``.
    public var effectiveEndpoint: URL {
        endpoint ?? URL(string: "https://s3.\(region).amazonaws.com") ?? URL(fileURLWithPath: "/")
    }

    /// The `http`/`https` URL of the object at `location`, its key percent-encoded as S3 wants
    /// it (each path segment encoded, `/` kept, nothing normalised).
    /// - Throws: ``/WebImageCore/WebImageError/invalidURL(_:)`` when the endpoint has no host, or
    ///   the bucket or key has a dot segment (``S3ObjectLocation/dotSegmentRefusal(bucket:key:)``).
    public func requestURL(for location: S3ObjectLocation) throws -> URL {
        let base = effectiveEndpoint
        guard let scheme = base.scheme?.lowercased(), let endpointHost = base.host, !endpointHost.isEmpty else {
            throw WebImageError.invalidURL("S3 endpoint \(base.absoluteString) (no host)")
        }
        if let refusal = S3ObjectLocation.dotSegmentRefusal(bucket: location.bucket, key: location.key) {
            throw WebImageError.invalidURL("s3://\(location.bucket.prefix(80))/\(location.key.prefix(200)) (\(refusal))")
        }
        var basePath = URLComponents(url: base, resolvingAgainstBaseURL: true)?.percentEncodedPath ?? ""
        while basePath.hasSuffix("/") { basePath.removeLast() }
        let key = S3URIEncoding.encodePath(location.key)
        let virtual = !(pathStyle ?? (endpoint != nil)) && Self.isHostCompatible(location.bucket, https: scheme == "https")
        let host = endpointHost.contains(":") ? "[\(endpointHost)]" : endpointHost
        let port = base.port.map { ":\($0)" } ?? ""
        var text: String
        if virtual {
            text = "\(scheme)://\(location.bucket).\(host)\(port)\(basePath)/\(key)"
        } else {
            text = "\(scheme)://\(host)\(port)\(basePath)/\(S3URIEncoding.encodePath(location.bucket))/\(key)"
        }
        if let version = location.versionID { text += "?versionId=\(S3URIEncoding.encodeQueryComponent(version))" }
        guard let url = URL(string: text) else { throw WebImageError.invalidURL("\(text.prefix(300)) (cannot be built)") }
        return url
    }

    /// Whether `bucket` can be the first label of a host name: lower-case letters, digits and
    /// `-` (and `.` over plain http, as a dotted name breaks the wildcard certificate).
    static func isHostCompatible(_ bucket: String, https: Bool) -> Bool {
        guard (3...63).contains(bucket.count), bucket.first != "-", bucket.last != "-" else { return false }
        return bucket.utf8.allSatisfy { byte in
            (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                || byte == UInt8(ascii: "-") || (!https && byte == UInt8(ascii: "."))
        }
    }
}
