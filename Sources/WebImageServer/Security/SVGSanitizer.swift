import Foundation

/// Removes from an SVG document what can run or fetch in a browser that opens it (imgproxy
/// sanitises SVG the same way by default): `<script>`, `<foreignObject>` and other embedding
/// elements with their content, `on…` event-handler attributes, links whose target is not in
/// the document (`javascript:`, `http:`, `//…`; only `#fragment` and `data:image/…` stay),
/// `url(…)` references outside the document in `style`, `@import` rules, processing
/// instructions such as `<?xml-stylesheet?>` and the `<!DOCTYPE>` with its entity declarations.
///
/// A small scanner of its own, not an XML parser: it never expands entities or follows
/// references, it takes linear time, and bytes it does not understand are dropped rather than
/// passed on. Text and harmless markup are copied unchanged.
enum SVGSanitizer {
    /// Elements removed with everything inside them.
    static let removedElements: Set<String> = [
        "script", "foreignobject", "iframe", "embed", "object", "applet", "handler", "listener", "audio", "video",
        "base", "link", "meta",
    ]

    /// `svg` sanitised.
    static func sanitize(_ svg: [UInt8]) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(svg.count)
        var index = 0
        /// The name of the removed element being skipped, and how deep inside it we are.
        var skipping: (name: String, depth: Int)? = nil
        while index < svg.count {
            guard svg[index] == UInt8(ascii: "<") else {
                let next = svg[index...].firstIndex(of: UInt8(ascii: "<")) ?? svg.count
                if skipping == nil { output.append(contentsOf: svg[index..<next]) }
                index = next
                continue
            }
            // Comments, CDATA, declarations and processing instructions.
            if starts(svg, index, "<!--") {
                // Comments are dropped: nothing needs them, and old parsers read markup in them.
                index = find(svg, "-->", from: index + 4).map { $0 + 3 } ?? svg.count
                continue
            }
            if starts(svg, index, "<![CDATA[") {
                let end = find(svg, "]]>", from: index + 9).map { $0 + 3 } ?? svg.count
                if skipping == nil {
                    // CDATA becomes escaped text (style sheets are read whole, below).
                    output.append(contentsOf: escapedText(Array(svg[min(end, index + 9)..<max(index + 9, end - 3)])))
                }
                index = end
                continue
            }
            if starts(svg, index, "<!") || starts(svg, index, "<?") {
                // `<!DOCTYPE …[ … ]>` may hold `>` inside its internal subset.
                let start = index
                index = declarationEnd(svg, from: index)
                let declaration = svg[start..<index]
                if start == 0, svg.starts(with: Array("<?xml ".utf8)), declaration.last == UInt8(ascii: ">"),
                    declaration.dropLast().last == UInt8(ascii: "?"), !declaration.dropFirst().contains(UInt8(ascii: "<")),
                    declaration.allSatisfy({ ($0 >= 0x20 && $0 < 0x7F) || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D })
                {
                    // The XML declaration itself is harmless and keeps the encoding: kept when whole
                    // and written in printable ASCII with `xml` in lower case, as every real one is
                    // (`<?xmL …?>` is a processing instruction).
                    output.append(contentsOf: declaration)
                }
                continue
            }
            guard let tag = Tag.parse(svg, at: index) else {
                if Tag.startsName(svg, at: index) {
                    // A tag that never ends: the rest of the document is not markup anyone
                    // should read; it is dropped.
                    index = svg.count
                    continue
                }
                // A lone `<` that starts no tag: escaped, so no browser reads a tag into it.
                if skipping == nil { output.append(contentsOf: Array("&lt;".utf8)) }
                index += 1
                continue
            }
            index = tag.end
            if var skip = skipping {
                if tag.name == skip.name {
                    if tag.isClosing { skip.depth -= 1 } else if !tag.isSelfClosing { skip.depth += 1 }
                }
                skipping = skip.depth == 0 ? nil : skip
                continue
            }
            if removedElements.contains(tag.name) {
                if !tag.isClosing && !tag.isSelfClosing { skipping = (tag.name, 1) }
                continue
            }
            output.append(contentsOf: tag.serialized())
            if tag.name == "style", !tag.isClosing, !tag.isSelfClosing {
                // A style sheet is text up to `</style`: read whole (CDATA markers and any `<`
                // removed), so that no piece of it is judged apart from the rest.
                let end = findCaseInsensitive(svg, "</", then: tag.rawName, from: index) ?? svg.count
                var css = Array(svg[index..<end])
                css = removing(Array("<![CDATA[".utf8), from: css)
                css = removing(Array("]]>".utf8), from: css)
                let sheet = sanitizeStyle(css)
                // `]]>` may not stand in text, and a second reading would remove it, joining what
                // is around it: a sheet that still holds one (the `<` removed made it) is dropped.
                output.append(contentsOf: find(sheet, "]]>", from: 0) == nil ? sheet : [])
                index = end
            }
        }
        return output
    }

    /// Whether `bytes` has `text` at `index`, ASCII case-insensitively.
    static func starts(_ bytes: [UInt8], _ index: Int, _ text: String) -> Bool {
        let needle = Array(text.utf8)
        guard index + needle.count <= bytes.count else { return false }
        for (offset, byte) in needle.enumerated() where lower(bytes[index + offset]) != lower(byte) { return false }
        return true
    }

    static func find(_ bytes: [UInt8], _ text: String, from start: Int) -> Int? {
        let needle = Array(text.utf8)
        guard let first = needle.first, start < bytes.count else { return nil }
        var index = start
        while index + needle.count <= bytes.count {
            guard let candidate = bytes[index...].firstIndex(of: first) else { return nil }
            if candidate + needle.count > bytes.count { return nil }
            if bytes[candidate..<candidate + needle.count].elementsEqual(needle) { return candidate }
            index = candidate + 1
        }
        return nil
    }

    /// The end of a `<!…>` or `<?…?>` starting at `index`, brackets of a DOCTYPE's internal
    /// subset and quoted strings skipped.
    static func declarationEnd(_ bytes: [UInt8], from index: Int) -> Int {
        var depth = 0, quote: UInt8? = nil, position = index + 2
        while position < bytes.count {
            let byte = bytes[position]
            if let open = quote {
                if byte == open { quote = nil }
            } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                quote = byte
            } else if byte == UInt8(ascii: "[") {
                depth += 1
            } else if byte == UInt8(ascii: "]") {
                depth = max(0, depth - 1)
            } else if byte == UInt8(ascii: ">"), depth == 0 {
                return position + 1
            }
            position += 1
        }
        return bytes.count
    }

    static func lower(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte
    }

    /// The index of `prefix` followed by `name` (ASCII case-insensitive) from `start`.
    static func findCaseInsensitive(_ bytes: [UInt8], _ prefix: String, then name: [UInt8], from start: Int) -> Int? {
        let needle = Array(prefix.utf8) + name
        guard needle.count <= bytes.count else { return nil }
        var index = start
        while index + needle.count <= bytes.count {
            if (0..<needle.count).allSatisfy({ lower(bytes[index + $0]) == lower(needle[$0]) }) { return index }
            index += 1
        }
        return nil
    }

    /// `bytes` without any occurrence of `pattern`.
    static func removing(_ pattern: [UInt8], from bytes: [UInt8]) -> [UInt8] {
        guard let first = pattern.first, bytes.count >= pattern.count else { return bytes }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == first, index + pattern.count <= bytes.count, bytes[index..<index + pattern.count].elementsEqual(pattern) {
                index += pattern.count
            } else {
                out.append(bytes[index])
                index += 1
            }
        }
        return out
    }

    /// `bytes` as character data: `&`, `<` and `>` escaped.
    static func escapedText(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "&"): out += Array("&amp;".utf8)
            case UInt8(ascii: "<"): out += Array("&lt;".utf8)
            case UInt8(ascii: ">"): out += Array("&gt;".utf8)
            default: out.append(byte)
            }
        }
        return out
    }

    /// CSS with `@import` rules and `url(…)` references outside the document neutralised, and
    /// no `<` (CSS needs none; markup could end the style element in an HTML parser). Matched on
    /// bytes, ASCII case-insensitively, as a CSS parser reads them.
    static func sanitizeStyle(_ css: [UInt8]) -> [UInt8] {
        let once = neutralizedStyle(css)
        // Removing a piece joins its neighbours, which can spell what a pass removes
        // (`@imp@import a;ort "http://e/x.css"` leaves an `@import` of a string, which no `url(`
        // rule sees): CSS that a second pass would change is dropped, so what is kept is what
        // was judged.
        return neutralizedStyle(once) == once ? once : []
    }

    /// One pass of ``sanitizeStyle(_:)``.
    private static func neutralizedStyle(_ css: [UInt8]) -> [UInt8] {
        var bytes = css.filter { $0 != UInt8(ascii: "<") }
        // Entity and backslash escapes could spell `url` or `@import` in disguise: such CSS is dropped.
        if bytes.contains(UInt8(ascii: "\\")) || bytes.contains(UInt8(ascii: "&")) { return [] }
        let lowered = bytes.map(lower)
        var kept: [UInt8] = []
        kept.reserveCapacity(bytes.count)
        var index = 0
        while let start = find(lowered, "@import", from: index) {
            kept += bytes[index..<start]
            index = lowered[start...].firstIndex(of: UInt8(ascii: ";")).map { $0 + 1 } ?? lowered.count
        }
        kept += bytes[index...]
        bytes = kept
        let keptLowered = bytes.map(lower)
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count)
        index = 0
        while let found = find(keptLowered, "url(", from: index) {
            let open = found + 4
            result += bytes[index..<open]
            // A `url(` that never closes swallows the rest of the value (CSS reads it as one bad
            // URL): the rest is dropped rather than judged, so no `url(` can hide inside it.
            guard let close = bytes[open...].firstIndex(of: UInt8(ascii: ")")) else {
                result.append(UInt8(ascii: "#"))
                index = bytes.count
                break
            }
            let target = String(decoding: bytes[open..<close], as: UTF8.self).trimmingCharacters(in: .whitespaces)
                .trimmingCharacters(in: CharacterSet(charactersIn: "\"'"))
            // A target holding another `(` (`url(#a url(http://e/x)`) is not a plain reference.
            if isLocalReference(target), !target.contains("(") { result += bytes[open..<close] } else { result.append(UInt8(ascii: "#")) }
            index = close
        }
        result += bytes[index...]
        return result
    }

    /// An attribute's local name in ASCII lower case (`xlink:HREF` → `href`).
    static func localName(_ name: [UInt8]) -> [UInt8] {
        let lowered = name.map(lower)
        return lowered.split(separator: UInt8(ascii: ":")).last.map(Array.init) ?? lowered
    }

    /// Whether `bytes` starts with the ASCII `prefix`.
    static func hasPrefix(_ bytes: [UInt8], _ prefix: String) -> Bool {
        bytes.starts(with: prefix.utf8)
    }

    /// Whether a link or `url()` target stays inside the document (`#id`) or is an image
    /// carried in it (`data:image/…`, SVG excepted, which could carry its own scripts).
    static func isLocalReference(_ target: String) -> Bool {
        let trimmed = target.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        if trimmed.hasPrefix("#") { return true }
        // A data URL of a raster image, in the characters such URLs are written in.
        return trimmed.hasPrefix("data:image/") && !trimmed.hasPrefix("data:image/svg")
            && trimmed.unicodeScalars.allSatisfy { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "+/=:;,.-_%".unicodeScalars.contains($0)) }
    }
}
