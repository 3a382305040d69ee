import Foundation

extension S3ResultStore {
    /// The bucket and prefix (without leading or trailing `/`) of `text`, an
    /// `s3://bucket[/prefix]` URL. The bucket takes the characters S3 bucket names may have;
    /// the prefix is used as it is written (no percent-decoding), without `?` or `#`, and is at
    /// most 900 bytes so that a whole key stays within S3's 1024.
    static func parseLocation(_ text: String) throws(S3ResultStoreLocationError) -> (bucket: String, prefix: String) {
        func invalid(_ why: String) -> S3ResultStoreLocationError {
            S3ResultStoreLocationError(reason: "'\(text.prefix(300))' is not an s3://bucket/prefix location: \(why)")
        }
        guard text.lowercased().hasPrefix("s3://") else { throw invalid("it does not start with s3://") }
        let rest = text.dropFirst(5)
        let bucket = String(rest.prefix { $0 != "/" })
        let prefix = String(rest.dropFirst(bucket.count)).trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        guard (3...255).contains(bucket.utf8.count),
            bucket.utf8.allSatisfy({ byte in
                (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                    || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
                    || byte == UInt8(ascii: "_")
            })
        else { throw invalid("'\(bucket.prefix(80))' is not a bucket name") }
        guard !prefix.contains("?"), !prefix.contains("#") else { throw invalid("a prefix has no ? or #") }
        guard prefix.utf8.count <= 900 else { throw invalid("a prefix is at most 900 bytes") }
        guard !prefix.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw invalid("a prefix has no control characters")
        }
        return (bucket, prefix)
    }
}
