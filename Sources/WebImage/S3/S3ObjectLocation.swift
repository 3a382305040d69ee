import Foundation

/// An object named by an `s3://bucket/key[?versionId=…]` URL (imgproxy's syntax).
public struct S3ObjectLocation: Sendable, Hashable {
    /// The bucket.
    public var bucket: String
    /// The object key: the URL's path without its leading `/`, percent-decoded.
    public var key: String
    /// The object version to read, or `nil` for the current one.
    public var versionID: String?

    /// A location from its parts.
    public init(bucket: String, key: String, versionID: String? = nil) {
        self.bucket = bucket
        self.key = key
        self.versionID = versionID
    }

    /// The location an `s3://` URL names.
    /// - Throws: ``/WebImageCore/WebImageError/invalidURL(_:)`` when `url` is not `s3://`, has no
    ///   bucket or key, a bucket name S3 cannot have, a key with a `.` or `..` segment once
    ///   percent-decoded (``dotSegmentRefusal(bucket:key:)``), or a query parameter other than
    ///   `versionId`.
    public init(_ url: URL) throws {
        func invalid(_ why: String) -> WebImageError { .invalidURL("\(url.absoluteString.prefix(300)) (\(why))") }
        guard url.scheme?.lowercased() == "s3" else { throw invalid("not an s3:// URL") }
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: true) else { throw invalid("unparsable") }
        guard let bucket = components.host, !bucket.isEmpty else { throw invalid("no bucket") }
        guard bucket.utf8.count <= 255,
            bucket.utf8.allSatisfy({ byte in
                (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                    || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
                    || byte == UInt8(ascii: "_")
            })
        else { throw invalid("'\(bucket.prefix(80))' is not a bucket name") }
        guard components.user == nil, components.password == nil, components.port == nil else {
            throw invalid("an s3:// URL names a bucket, without user, password or port")
        }
        var key = components.path
        if key.hasPrefix("/") { key.removeFirst() }
        guard !key.isEmpty else { throw invalid("no object key") }
        guard key.utf8.count <= 1024 else { throw invalid("an object key is at most 1024 bytes") }
        if let refusal = Self.dotSegmentRefusal(bucket: bucket, key: key) { throw invalid(refusal) }
        var version: String?
        for item in components.queryItems ?? [] {
            guard item.name == "versionId", let value = item.value, !value.isEmpty, version == nil else {
                throw invalid("the only query parameter of an s3:// URL is one versionId")
            }
            version = value
        }
        self.init(bucket: bucket, key: key, versionID: version)
    }

    /// Why a location cannot be requested, or `nil`: a bucket named `.` or `..`, or a key with
    /// a `.` or `..` segment (`a/../b`, `./x`, `a/..`). The request path would hold a dot
    /// segment, which a gateway or proxy that normalises paths (RFC 3986 §5.2.4) resolves to
    /// another object — or, path-style, another bucket — than the one the bucket rules checked.
    /// Dots inside a segment (`a..b`, `.x`, `...`) are ordinary key characters.
    public static func dotSegmentRefusal(bucket: String, key: String) -> String? {
        if bucket == "." || bucket == ".." { return "the bucket name '\(bucket)' is a dot segment" }
        // On bytes: as Swift `Character`s, a combining mark after `/` joins it (`/` + U+06D6 is
        // one Character), and the `/` before it would not split a segment.
        guard key.utf8.contains(UInt8(ascii: ".")) else { return nil }
        let dotted = key.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).contains {
            $0.elementsEqual(".".utf8) || $0.elementsEqual("..".utf8)
        }
        return dotted ? "the key has a '.' or '..' dot segment, which a proxy or gateway may resolve to another object or bucket" : nil
    }
}
