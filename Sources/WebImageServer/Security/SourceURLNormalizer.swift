import Foundation

/// The one form of an `http`/`https` source URL that the allow-list compares and the
/// downloader requests (RFC 3986 §6.2.2 syntax-based normalisation, as an origin reads it):
///
/// - the scheme and host in lower case, the scheme's default port removed (`:80`, `:443`, a
///   bare `:`);
/// - percent-encoded unreserved characters (`A–Z a–z 0–9 - . _ ~`) decoded and the other
///   escapes' hex digits in upper case, so `%2e%2e` is `..`;
/// - `\` in the path read as `/`, as browsers read it;
/// - dot segments removed (§5.2.4), so `/ok/../private.png` is `/private.png`; an empty path is `/`;
/// - the fragment dropped (it is never sent).
///
/// Checking the allow-list against the form that is sent closes the gap between what was
/// allowed and what the origin serves (`http://H/ok/../private.png` passed a prefix
/// `http://H/ok/` and fetched `/private.png`).
enum SourceURLNormalizer {
    /// `source` normalised; other schemes (`local://`) unchanged.
    /// - Throws: ``ImageServiceError/badURL(_:)`` for a malformed escape or authority.
    static func normalize(_ source: String) throws(ImageServiceError) -> String {
        guard let schemeEnd = source.range(of: "://") else { return source }
        let scheme = source[..<schemeEnd.lowerBound].lowercased()
        guard scheme == "http" || scheme == "https" else { return source }
        // Characters outside ASCII are percent-encoded as their UTF-8 bytes first (RFC 3987
        // §3.1), so every later step works on ASCII, where a Character is one scalar: a
        // prepended or combining scalar can no longer hide a `/`, `?`, `#`, `@` or `:` inside one
        // Character (which kept `..` segments and broke idempotence).
        var rest = Substring(percentEncodingNonASCII(source[schemeEnd.upperBound...]))
        if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "\\" }) ?? rest.endIndex
        let authority = try normalizeAuthority(rest[..<authorityEnd], defaultPort: scheme == "http" ? "80" : "443")
        var pathAndQuery = rest[authorityEnd...]
        var query: Substring? = nil
        if let mark = pathAndQuery.firstIndex(of: "?") {
            query = pathAndQuery[pathAndQuery.index(after: mark)...]
            pathAndQuery = pathAndQuery[..<mark]
        }
        var path = try normalizeEscapes(String(pathAndQuery).replacingOccurrences(of: "\\", with: "/"))
        path = removeDotSegments(path)
        if path.isEmpty { path = "/" }
        var result = scheme + "://" + authority + path
        if let query { result += "?" + (try normalizeEscapes(String(query))) }
        return result
    }

    /// `userinfo@host:port` with the host in lower case and the default port removed.
    private static func normalizeAuthority(_ authority: Substring, defaultPort: String) throws(ImageServiceError) -> String {
        var userinfo = ""
        var hostPort = authority
        if let at = authority.lastIndex(of: "@") {
            userinfo = String(authority[...at])
            hostPort = authority[authority.index(after: at)...]
        }
        var host = hostPort, port: Substring? = nil
        if hostPort.hasPrefix("[") {
            guard let close = hostPort.firstIndex(of: "]") else { throw .badURL("source URL has an unclosed IPv6 address") }
            host = hostPort[...close]
            let after = hostPort[hostPort.index(after: close)...]
            if after.hasPrefix(":") { port = after.dropFirst() } else if !after.isEmpty { throw .badURL("source URL has a malformed host") }
        } else if let colon = hostPort.lastIndex(of: ":") {
            host = hostPort[..<colon]
            port = hostPort[hostPort.index(after: colon)...]
        }
        guard !host.isEmpty else { throw .badURL("source URL has no host") }
        guard !host.contains("%") else { throw .badURL("source URL's host is not ASCII: write it in punycode (xn--…)") }
        guard host.hasPrefix("[") || !host.contains(":"),
            !host.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.value < 0x20 || $0.value == 0x7F })
        else { throw .badURL("source URL has a malformed host") }
        if let port, !port.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
            throw .badURL("source URL's port is not a number")
        }
        var text = userinfo + host.lowercased()
        if let port {
            let digits = port.drop(while: { $0 == "0" })
            if !port.isEmpty, String(digits) != defaultPort { text += ":" + port }
        }
        return text
    }

    /// Escapes of unreserved characters decoded, others with upper-case hex digits.
    private static func normalizeEscapes(_ text: String) throws(ImageServiceError) -> String {
        guard text.contains("%") else { return text }
        let bytes = Array(text.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            guard byte == UInt8(ascii: "%") else {
                output.append(byte)
                index += 1
                continue
            }
            guard index + 2 < bytes.count, let high = HexBytes.value(of: bytes[index + 1]), let low = HexBytes.value(of: bytes[index + 2])
            else { throw .badURL("source URL has a malformed percent escape") }
            let value = high << 4 | low
            if isUnreserved(value) {
                output.append(value)
            } else {
                output.append(UInt8(ascii: "%"))
                output.append(upperHex(high))
                output.append(upperHex(low))
            }
            index += 3
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// RFC 3986 §5.2.4, on a path that starts with `/` (or is empty).
    static func removeDotSegments(_ path: String) -> String {
        guard path.contains(".") else { return path }
        var output: [Substring] = []
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        for (position, segment) in segments.enumerated() {
            let last = position == segments.count - 1
            switch segment {
            case ".":
                if last { output.append("") }
            case "..":
                if !output.isEmpty { output.removeLast() }
                if last { output.append("") }
            default:
                output.append(segment)
            }
        }
        return "/" + output.joined(separator: "/")
    }

    /// `text` with every byte of its non-ASCII characters written as `%XX`.
    static func percentEncodingNonASCII(_ text: Substring) -> String {
        guard !text.utf8.allSatisfy({ $0 < 0x80 }) else { return String(text) }
        var output: [UInt8] = []
        output.reserveCapacity(text.utf8.count * 3)
        for byte in text.utf8 {
            if byte < 0x80 {
                output.append(byte)
            } else {
                output += [UInt8(ascii: "%"), upperHex(byte >> 4), upperHex(byte & 0x0F)]
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            true
        default:
            false
        }
    }

    private static func upperHex(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "A") + nibble - 10
    }
}
