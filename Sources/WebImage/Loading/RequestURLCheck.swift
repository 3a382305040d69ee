import Foundation

/// The checks every URL passes before it reaches the HTTP client: the URL a download starts
/// with, the URL a request modifier returned, and the `Location` of every redirect.
///
/// The HTTP client and SwiftNIO below it take some URLs on trust: a host that is an IP literal
/// with a port above 65535 stops the process inside `SocketAddress(ipAddress:port:)`, and a
/// port too long for an integer is silently read as the scheme's default port. A URL from a
/// stranger (a service's source, an origin's redirect) therefore never goes there unchecked.
enum RequestURLCheck {
    /// Why `url` cannot be requested, in plain words; `nil` when it can.
    ///
    /// A requestable URL has the scheme `http` or `https`, a non-empty host of at most 255
    /// characters without spaces or control characters, and either no port or a decimal port
    /// from 1 to 65535.
    static func problem(with url: URL) -> String? {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            return "the scheme \(url.scheme.map { "'\($0)'" } ?? "(none)") is not http or https"
        }
        guard let host = url.host, !host.isEmpty else { return "the URL has no host" }
        guard host.utf8.count <= 255 else { return "the host name is longer than 255 characters" }
        // A bracket is only an IPv6 literal's delimiter; a decoded `%5D` alone left the HTTP
        // client an empty host, which it traps on.
        let bare = host.count >= 2 && host.hasPrefix("[") && host.hasSuffix("]") ? host.dropFirst().dropLast() : Substring(host)
        guard !bare.isEmpty, !bare.contains("["), !bare.contains("]") else { return "the host name is malformed" }
        if host.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.value < 0x20 || $0.value == 0x7F }) {
            return "the host name contains spaces or control characters"
        }
        switch portText(of: url.absoluteString) {
        case .none:
            return nil
        case .some(let text):
            return portProblem(text)
        }
    }

    /// Why a port written as `text` cannot be connected to; `nil` for 1 … 65535.
    static func portProblem(_ text: Substring) -> String? {
        if text.isEmpty { return nil }  // "host:" is the default port (RFC 3986 §3.2.3)
        guard text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            return "the port '\(text.prefix(20))' is not a number"
        }
        let digits = text.drop(while: { $0 == "0" })
        guard digits.count <= 5, let port = Int(digits), (1...65_535).contains(port) else {
            return "the port \(text.prefix(20)) is outside 1 … 65535"
        }
        return nil
    }

    /// The text after the colon of the authority's port, `nil` when the authority has none.
    /// Read from the URL's text rather than `URL.port`, which is `nil` both for "no port" and
    /// for a port it could not represent.
    static func portText(of text: String) -> Substring? {
        guard let schemeEnd = text.range(of: "://") else { return nil }
        let rest = text[schemeEnd.upperBound...]
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? rest.endIndex
        var authority = rest[..<authorityEnd]
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            let after = authority[authority.index(after: close)...]
            guard after.hasPrefix(":") else { return nil }
            return after.dropFirst()
        }
        guard let colon = authority.lastIndex(of: ":") else { return nil }
        return authority[authority.index(after: colon)...]
    }
}
