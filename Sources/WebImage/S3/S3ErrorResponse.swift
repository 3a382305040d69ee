import Foundation

/// The `<Code>` and `<Message>` of an S3 error response body
/// (`<Error><Code>SignatureDoesNotMatch</Code><Message>…</Message>…</Error>`).
struct S3ErrorResponse: Sendable, Equatable {
    /// S3's error code (`AccessDenied`, `SignatureDoesNotMatch`, `NoSuchKey`, …).
    let code: String?
    /// S3's message, at most 300 characters.
    let message: String?

    /// Reads the first `<Code>` and `<Message>` elements of `body` (not a full XML parser: S3's
    /// error documents are flat).
    init(body: Data) {
        let text = String(decoding: body.prefix(64 * 1024), as: UTF8.self)
        code = Self.element("Code", in: text)
        message = Self.element("Message", in: text).map { String($0.prefix(300)) }
    }

    private static func element(_ name: String, in text: String) -> String? {
        guard let open = text.range(of: "<\(name)>"), let close = text.range(of: "</\(name)>", range: open.upperBound..<text.endIndex)
        else { return nil }
        let raw = text[open.upperBound..<close.lowerBound]
        let value = raw.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&apos;", with: "'")
            .replacingOccurrences(of: "&amp;", with: "&").trimmingCharacters(in: .whitespacesAndNewlines)
        return value.isEmpty ? nil : value
    }
}
