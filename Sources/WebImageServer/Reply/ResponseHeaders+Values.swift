import Crypto
import Foundation
import WebImage

extension ResponseHeaders {
    /// A strong ETag from the source identity, the canonical options and the output format.
    static func etag(identity: String, options: ProcessingOptions, format: String) -> String {
        let text = "\(identity)|\(options.canonicalForm)|\(format)"
        let digest = SHA256.hash(data: Data(text.utf8))
        return "\"" + Base64URL.encode(digest.prefix(18)) + "\""
    }

    /// Whether an `If-None-Match` value names `tag` (or `*`, or its weak form).
    static func matches(_ ifNoneMatch: String, _ tag: String) -> Bool {
        if ifNoneMatch == tag { return true }
        return ifNoneMatch.split(separator: ",").contains { candidate in
            let trimmed = candidate.trimmingCharacters(in: .whitespaces)
            return trimmed == "*" || trimmed == tag || trimmed == "W/" + tag
        }
    }

    /// `inline` (or `attachment` with `return_attachment`) with a file name from the
    /// `filename` option or the source's last path segment, reduced to safe characters.
    static func disposition(options: ProcessingOptions, source: String, ext: String) -> String {
        var stem = options.filename ?? {
            let last = source.split(separator: "?").first.map(String.init)?.split(separator: "/").last.map(String.init) ?? "image"
            return last.split(separator: ".").first.map(String.init) ?? "image"
        }()
        stem = String(stem.filter { $0.isASCII && ($0.isLetter || $0.isNumber || "-_. ".contains($0)) }.prefix(200))
        if stem.isEmpty { stem = "image" }
        let kind = options.returnAttachment == true ? "attachment" : "inline"
        return "\(kind); filename=\"\(stem).\(ext)\""
    }
}
