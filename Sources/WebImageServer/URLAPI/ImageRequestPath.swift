import Foundation

/// The parts of an image URL path (SPEC V-2):
/// `/{signature}/{options…}/plain/{source}[@{ext}]` or
/// `/{signature}/{options…}/{base64url(source)}[.{ext}]` (the base64 may be split by `/`).
public struct ImageRequestPath: Sendable, Hashable {
    /// The first segment: a signature, or `insecure`/`unsafe` (or anything) when unsigned.
    public var signature: String
    /// Everything after the signature segment, starting with `/`, exactly as received: what
    /// the signature signs.
    public var signedPath: String
    /// The `name:arg:…` option segments, in order.
    public var optionSegments: [String]
    /// The source URL, decoded.
    public var source: String
    /// The format asked for by the extension, if any.
    public var extensionFormat: OutputFormat?
    /// Whether the extension is `best` (`@best`, `.best`).
    public var extensionIsBest = false

    /// The longest path accepted, before any parsing.
    public static let maximumLength = 8192

    /// Splits a request path (percent-encoded, without the query) into its parts.
    public init(path: String) throws(ImageServiceError) {
        guard path.utf8.count <= Self.maximumLength else { throw .badURL("path too long") }
        var segments = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        if segments.first == "" { segments.removeFirst() }
        guard segments.count >= 2, !segments[0].isEmpty else {
            throw .badURL("expected /{signature}/{options}/{source}")
        }
        signature = segments[0]
        signedPath = "/" + segments.dropFirst().joined(separator: "/")
        var index = 1
        var options: [String] = []
        while index < segments.count, segments[index].contains(":") {
            options.append(segments[index])
            index += 1
        }
        optionSegments = options
        guard index < segments.count else { throw .badURL("missing source URL") }
        if segments[index] == "plain" {
            var encoded = segments[(index + 1)...].joined(separator: "/")
            var ext: String?
            if let at = encoded.lastIndex(of: "@") {
                ext = String(encoded[encoded.index(after: at)...])
                encoded = String(encoded[..<at])
            }
            guard !encoded.isEmpty, let decoded = encoded.removingPercentEncoding else {
                throw .badURL("plain source URL is empty or badly percent-encoded")
            }
            source = decoded
            extensionIsBest = ext?.lowercased() == "best"
            extensionFormat = extensionIsBest ? nil : try Self.format(ext)
        } else {
            var encoded = segments[index...].joined()
            var ext: String?
            if let dot = encoded.firstIndex(of: ".") {
                ext = String(encoded[encoded.index(after: dot)...])
                encoded = String(encoded[..<dot])
            }
            guard !encoded.isEmpty, let bytes = Base64URL.decode(encoded), let text = String(bytes: bytes, encoding: .utf8),
                  !text.isEmpty else {
                throw .badURL("source URL is not URL-safe base64 (or use /plain/)")
            }
            source = text
            extensionIsBest = ext?.lowercased() == "best"
            extensionFormat = extensionIsBest ? nil : try Self.format(ext)
        }
    }

    private static func format(_ ext: String?) throws(ImageServiceError) -> OutputFormat? {
        guard let ext, !ext.isEmpty else { return nil }
        guard let format = OutputFormat(name: ext) else { throw .badOption(option: "extension", reason: "unsupported format '\(ext)'") }
        return format
    }
}
