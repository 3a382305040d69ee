import Crypto
import Foundation

/// How a cache key becomes a file name (SPEC S-2): the hex SHA-256 of the key's UTF-8 bytes,
/// plus `.` and the key's URL path extension when that is 1–8 ASCII letters or digits.
///
/// The name never contains `/`, never starts with `.` and is at most 73 characters, so no key
/// — `../` sequences, very long keys, odd characters — can leave the cache folder. Everything
/// else the cache keeps in its folder (index, lock, temporary files, side records) starts with
/// `.`, so entries are recognised by ``isEntryName(_:)``.
enum DiskCacheFileName {
    /// The file name for `key`.
    static func forKey(_ key: String) -> String {
        let digest = SHA256.hash(data: Data(key.utf8))
        // Built as ASCII bytes: this runs on every disk read and write.
        var name = [UInt8]()
        name.reserveCapacity(73)
        for byte in digest {
            name.append(hexDigit(byte >> 4))
            name.append(hexDigit(byte & 0x0F))
        }
        if let ext = pathExtension(of: key) {
            name.append(UInt8(ascii: "."))
            name.append(contentsOf: ext.utf8)
        }
        return String(decoding: name, as: UTF8.self)
    }

    /// The lowercase hex digit of a value 0…15.
    private static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") + value - 10
    }

    /// The key's path extension when short and plain: the text after the last `.` of the last
    /// path segment, before any `?` or `#`.
    static func pathExtension(of key: String) -> String? {
        let utf8 = Array(key.utf8)
        var end = utf8.count
        if let schemeEnd = findSchemeSeparator(utf8) {
            if let cut = utf8[schemeEnd...].firstIndex(where: { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }) {
                end = cut
            }
        }
        var start = end
        while start > 0 {
            let byte = utf8[start - 1]
            if byte == UInt8(ascii: ".") { break }
            if byte == UInt8(ascii: "/") { return nil }
            start -= 1
        }
        guard start > 0, end > start, end - start <= 8 else { return nil }
        // The dot must not start the last segment (".png" alone is a name, not an extension).
        if start - 1 == 0 || utf8[start - 2] == UInt8(ascii: "/") { return nil }
        let ext = utf8[start..<end]
        guard ext.allSatisfy({ isASCIIAlphanumeric($0) }) else { return nil }
        return String(decoding: ext, as: UTF8.self)
    }

    /// Whether `name` is the shape of an entry file name.
    static func isEntryName(_ name: String) -> Bool {
        let utf8 = Array(name.utf8)
        guard utf8.count >= 64 else { return false }
        for byte in utf8[0..<64] {
            guard (byte >= 0x30 && byte <= 0x39) || (byte >= 0x61 && byte <= 0x66) else { return false }
        }
        if utf8.count == 64 { return true }
        guard utf8[64] == UInt8(ascii: "."), utf8.count > 65, utf8.count <= 73 else { return false }
        return utf8[65...].allSatisfy { isASCIIAlphanumeric($0) }
    }

    private static func isASCIIAlphanumeric(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
    }

    private static func findSchemeSeparator(_ utf8: [UInt8]) -> Int? {
        // "scheme://": letters, digits, + - . before "://" in the first 32 bytes.
        let limit = min(utf8.count, 40)
        var i = 0
        while i + 2 < limit {
            if utf8[i] == UInt8(ascii: ":") && utf8[i + 1] == UInt8(ascii: "/") && utf8[i + 2] == UInt8(ascii: "/") {
                return i > 0 ? i + 3 : nil
            }
            let byte = utf8[i]
            guard isASCIIAlphanumeric(byte) || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-")
                || byte == UInt8(ascii: ".")
            else { return nil }
            i += 1
        }
        return nil
    }
}
