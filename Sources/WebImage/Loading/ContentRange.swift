/// A `Content-Range: bytes <first>-<last>/<total>` header value of a `206 Partial Content`
/// response (RFC 9110 §14.4), parsed strictly: anything else (`*` totals, other units, spaces,
/// signs, overflowing numbers, `last` before `first` or beyond the total) is `nil`.
struct ContentRange: Sendable, Hashable {
    /// The offset of the first byte sent.
    let first: Int64
    /// The offset of the last byte sent (inclusive).
    let last: Int64
    /// The size of the whole representation.
    let total: Int64

    init?(_ value: String) {
        let prefix = "bytes "
        guard value.hasPrefix(prefix) else { return nil }
        let rest = value.dropFirst(prefix.count)
        guard let dash = rest.firstIndex(of: "-"), let slash = rest.firstIndex(of: "/"), dash < slash,
            let first = Self.number(rest[..<dash]),
            let last = Self.number(rest[rest.index(after: dash)..<slash]),
            let total = Self.number(rest[rest.index(after: slash)...]),
            first <= last, last < total
        else { return nil }
        self.first = first
        self.last = last
        self.total = total
    }

    /// The number of body bytes the range covers.
    var length: Int64 { last - first + 1 }

    private static func number(_ digits: Substring) -> Int64? {
        guard !digits.isEmpty, digits.count <= 18, digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int64(digits)
    }
}
