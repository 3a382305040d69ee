import Foundation

/// URL-safe base64 (RFC 4648 §5): `-` and `_` for `+` and `/`, no padding on output, padding
/// optional on input.
public enum Base64URL {
    /// `bytes` as URL-safe base64 without padding.
    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        var text = Data(bytes).base64EncodedString()
        text = text.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        while text.hasSuffix("=") { text.removeLast() }
        return text
    }

    /// The bytes of URL-safe base64 `text` (padding optional), or `nil` when it is not base64.
    public static func decode(_ text: some StringProtocol) -> [UInt8]? {
        var standard = String(text).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        guard !standard.contains("=") || standard.hasSuffix("=") else { return nil }
        while standard.hasSuffix("=") { standard.removeLast() }
        let remainder = standard.utf8.count % 4
        if remainder == 1 { return nil }
        if remainder > 0 { standard += String(repeating: "=", count: 4 - remainder) }
        guard let data = Data(base64Encoded: standard) else { return nil }
        return Array(data)
    }
}
