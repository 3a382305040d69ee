import WebImageCore

/// Keeps `data:` images out of librsvg. librsvg refuses every URL that needs a base (there is
/// none), but it decodes `data:` URLs — through gdk-pixbuf's loaders, a second set of image
/// decoders this library does not choose. Before parsing, every `data:` URL written as a value
/// (after a quote, or in a CSS `url(`) gets its scheme renamed (`xata:`, same length), so
/// librsvg refuses it like any other unresolvable reference and draws the rest of the document.
/// Documents that could spell `data:` in other ways are refused: a character reference to one
/// of its letters, or an entity whose text could start it (`d`, `da`, …, or another reference).
enum SVGDataURLFilter {
    /// `document` with its `data:` URL values renamed.
    /// - Throws: `badImageData` for a document that spells `data:` through references.
    static func filter(_ document: [UInt8]) throws -> [UInt8] {
        var bytes = document
        try refuseSpelledReferences(bytes)
        var i = 0
        while i + 5 <= bytes.count {
            if matchesData(bytes, at: i), startsValue(bytes, before: i) { bytes[i] = UInt8(ascii: "x") }
            i += 1
        }
        try refuseEntityPrefixes(bytes)
        return bytes
    }

    /// `data:` (any case) at `i`.
    private static func matchesData(_ b: [UInt8], at i: Int) -> Bool {
        let word: [UInt8] = Array("data:".utf8)
        for k in 0..<5 where (b[i + k] | (k < 4 ? 0x20 : 0)) != word[k] { return false }
        return true
    }

    /// Whether a value starts at `i`: after a quote or `url(` (each followed by optional white
    /// space and, for `url(`, an optional quote).
    private static func startsValue(_ b: [UInt8], before i: Int) -> Bool {
        var j = i - 1
        while j >= 0, isSpace(b[j]) { j -= 1 }
        guard j >= 0 else { return false }
        if b[j] == UInt8(ascii: "\"") || b[j] == UInt8(ascii: "'") {
            // `"data:` or `url("data:`: both are values.
            return true
        }
        guard b[j] == UInt8(ascii: "("), j >= 3 else { return false }
        return (b[j - 3] | 0x20) == UInt8(ascii: "u") && (b[j - 2] | 0x20) == UInt8(ascii: "r") && (b[j - 1] | 0x20) == UInt8(ascii: "l")
    }

    private static func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D }

    /// Refuses `&#…;` references to the letters of `data:` (legitimate documents write them plainly).
    private static func refuseSpelledReferences(_ b: [UInt8]) throws {
        let letters: Set<UInt32> = [0x64, 0x44, 0x61, 0x41, 0x74, 0x54, 0x3A]
        var i = 0
        while i + 3 < b.count {
            defer { i += 1 }
            guard b[i] == UInt8(ascii: "&"), b[i + 1] == UInt8(ascii: "#") else { continue }
            var j = i + 2
            let hex = j < b.count && (b[j] | 0x20) == UInt8(ascii: "x")
            if hex { j += 1 }
            var value: UInt32 = 0
            var digits = 0
            while j < b.count, digits < 8 {
                let c = b[j]
                let digit: UInt32
                switch c {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(c - UInt8(ascii: "0"))
                case UInt8(ascii: "a")...UInt8(ascii: "f") where hex: digit = UInt32(c - UInt8(ascii: "a") + 10)
                case UInt8(ascii: "A")...UInt8(ascii: "F") where hex: digit = UInt32(c - UInt8(ascii: "A") + 10)
                default: digit = 99
                }
                if digit == 99 { break }
                value = value * (hex ? 16 : 10) + digit
                digits += 1
                j += 1
            }
            if digits > 0, letters.contains(value) {
                throw WebImageError.badImageData(reason: "SVG: a character reference spells part of a URL scheme; refused")
            }
        }
    }

    /// Refuses entity declarations whose text could begin `data:` when references are joined:
    /// text that is a prefix of `data:` or holds another reference.
    private static func refuseEntityPrefixes(_ b: [UInt8]) throws {
        let marker: [UInt8] = Array("<!ENTITY".utf8)
        var i = 0
        while i + marker.count < b.count {
            defer { i += 1 }
            guard b[i] == marker[0], (1..<marker.count).allSatisfy({ b[i + $0] == marker[$0] }) else { continue }
            var j = i + marker.count
            while j < b.count, b[j] != UInt8(ascii: "\""), b[j] != UInt8(ascii: "'"), b[j] != UInt8(ascii: ">") { j += 1 }
            guard j < b.count, b[j] != UInt8(ascii: ">") else { continue }
            let quote = b[j]
            var end = j + 1
            while end < b.count, b[end] != quote { end += 1 }
            var text = Array(b[(j + 1)..<min(end, b.count)])
            if text.contains(UInt8(ascii: "&")) || text.contains(UInt8(ascii: "%")) {
                throw WebImageError.badImageData(reason: "SVG: an entity refers to other entities; refused")
            }
            while let first = text.first, isSpace(first) { text.removeFirst() }
            let lowered = text.prefix(5).map { $0 | 0x20 }
            if !text.isEmpty, text.count < 5, Array("data".utf8).starts(with: lowered) {
                throw WebImageError.badImageData(reason: "SVG: an entity could start a data: URL; refused")
            }
        }
    }
}
