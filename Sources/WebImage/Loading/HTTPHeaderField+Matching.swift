/// Header-name matching and value trimming without Foundation's Unicode string machinery:
/// header names are ASCII tokens (RFC 9110 §5.1), so ASCII case folding is the whole rule, and
/// optional whitespace around values is spaces and tabs (§5.6.3). This runs several times per
/// response on the download path.
extension HTTPHeaderField {
    /// Whether this field's name is `name`, ignoring ASCII case.
    func hasName(_ name: String) -> Bool {
        Self.namesMatch(self.name, name)
    }

    /// ASCII case-insensitive equality of two header names.
    static func namesMatch(_ lhs: String, _ rhs: String) -> Bool {
        var left = lhs.utf8.makeIterator()
        var right = rhs.utf8.makeIterator()
        while true {
            switch (left.next(), right.next()) {
            case (nil, nil):
                return true
            case (let a?, let b?):
                guard a == b || asciiLowercase(a) == asciiLowercase(b) else { return false }
            default:
                return false
            }
        }
    }

    /// `value` without leading and trailing spaces and tabs.
    static func trimmingOptionalWhitespace<S: StringProtocol>(_ value: S) -> Substring where S.SubSequence == Substring {
        let isWhitespace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = value.firstIndex(where: { !isWhitespace($0) }),
            let last = value.lastIndex(where: { !isWhitespace($0) })
        else { return value[value.endIndex...] }
        return value[first...last]
    }

    private static func asciiLowercase(_ byte: UInt8) -> UInt8 {
        byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
    }
}
