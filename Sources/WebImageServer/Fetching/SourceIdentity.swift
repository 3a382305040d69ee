import Crypto
import Foundation

/// A fetched source's identity, the part of its answers' ETags and result keys that changes
/// when the source does (SPEC V-7: "derived from the source's identity (validator or content
/// hash)").
///
/// - The origin's **strong** `ETag` for the URL that was asked for (no redirect on the way),
///   with that URL: a strong validator promises byte-identical content, so the 1 MB source need
///   not be hashed again on every fetch. imgproxy builds its ETag from the source's `ETag` the
///   same way.
/// - Otherwise (no `ETag`, a weak or malformed one, a redirected fetch, a `local://` file) the
///   SHA-256 of the bytes.
///
/// The two forms never coincide: a validator identity starts with `etag-`, a content hash is
/// 64 hex digits.
enum SourceIdentity {
    /// The identity from the origin's validator `entityTag` for `source`, or `nil` when it is
    /// absent, weak (`W/`), not a quoted strong entity-tag, or longer than 1,024 bytes.
    static func validator(_ entityTag: String?, source: String) -> String? {
        guard let tag = entityTag?.trimmingCharacters(in: CharacterSet(charactersIn: " \t")), isStrong(tag) else { return nil }
        // Length-prefixed, so that no URL and tag pair can read as another.
        let text = "\(source.utf8.count):\(source)\(tag)"
        return "etag-" + hex(SHA256.hash(data: Data(text.utf8)))
    }

    /// The identity from the bytes: hex SHA-256.
    static func content(_ data: Data) -> String {
        hex(SHA256.hash(data: data))
    }

    /// The validator's identity when there is one, else the bytes'.
    static func of(_ data: Data, entityTag: String?, source: String) -> String {
        validator(entityTag, source: source) ?? content(data)
    }

    /// `"…"` with at least one character inside and none of `"`, controls or DEL (RFC 9110
    /// §8.8.3's `opaque-tag`), at most 1,024 bytes.
    static func isStrong(_ tag: String) -> Bool {
        let bytes = Array(tag.utf8)
        guard bytes.count >= 3, bytes.count <= 1024, bytes.first == 0x22, bytes.last == 0x22 else { return false }
        return bytes.dropFirst().dropLast().allSatisfy { $0 == 0x21 || ($0 >= 0x23 && $0 != 0x7F) }
    }

    private static func hex(_ digest: SHA256.Digest) -> String {
        digest.map { String($0, radix: 16).leftPadded(to: 2) }.joined()
    }
}
