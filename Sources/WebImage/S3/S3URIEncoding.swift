/// Percent-encoding as AWS Signature Version 4 and S3 want it: every byte of the UTF-8 form
/// except the unreserved characters `A–Z a–z 0–9 - _ . ~` becomes `%XX` (upper-case hex).
enum S3URIEncoding {
    /// An object key as a URL path: each byte encoded except the unreserved characters and `/`,
    /// which separates the path's segments. Nothing is normalised: `//` and a trailing `/` stay
    /// as they are, as S3 keys may contain them (keys with `.` or `..` segments are refused
    /// before this, ``S3ObjectLocation/dotSegmentRefusal(bucket:key:)``).
    static func encodePath(_ text: String) -> String {
        encode(text, keepingSlash: true)
    }

    /// A query parameter's name or value: every byte encoded except the unreserved characters.
    static func encodeQueryComponent(_ text: String) -> String {
        encode(text, keepingSlash: false)
    }

    private static let hex = Array("0123456789ABCDEF".utf8)

    private static func encode(_ text: String, keepingSlash: Bool) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            if isUnreserved(byte) || (keepingSlash && byte == UInt8(ascii: "/")) {
                bytes.append(byte)
            } else {
                bytes.append(UInt8(ascii: "%"))
                bytes.append(hex[Int(byte >> 4)])
                bytes.append(hex[Int(byte & 0x0F)])
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }
}
