import Foundation

extension SVGSanitizer {
    /// One start or end tag, read leniently and written back with only its safe attributes.
    struct Tag {
        /// The local name in lower case (`svg:script` → `script`).
        var name: String
        /// The name as written.
        var rawName: [UInt8]
        var attributes: [(name: [UInt8], value: [UInt8]?)]
        var isClosing: Bool
        var isSelfClosing: Bool
        /// The index just past the tag's `>`.
        var end: Int

        /// The tag starting at `index` (a `<`), or `nil` when none starts there.
        static func parse(_ bytes: [UInt8], at index: Int) -> Tag? {
            var position = index + 1
            var closing = false
            if position < bytes.count, bytes[position] == UInt8(ascii: "/") {
                closing = true
                position += 1
            }
            let nameStart = position
            guard position < bytes.count, isNameStart(bytes[position]) else { return nil }
            while position < bytes.count, isNameByte(bytes[position]) { position += 1 }
            let rawName = Array(bytes[nameStart..<position])
            var attributes: [(name: [UInt8], value: [UInt8]?)] = []
            var selfClosing = false
            while position < bytes.count {
                let byte = bytes[position]
                if isSpace(byte) {
                    position += 1
                } else if byte == UInt8(ascii: ">") {
                    let lowered = String(decoding: rawName.map(SVGSanitizer.lower), as: UTF8.self)
                    let local = lowered.split(separator: ":").last.map(String.init) ?? lowered
                    return Tag(
                        name: local, rawName: rawName, attributes: attributes, isClosing: closing,
                        isSelfClosing: selfClosing, end: position + 1)
                } else if byte == UInt8(ascii: "/") {
                    selfClosing = true
                    position += 1
                } else if isNameStart(byte) {
                    selfClosing = false
                    let start = position
                    while position < bytes.count, isNameByte(bytes[position]) { position += 1 }
                    let name = Array(bytes[start..<position])
                    var probe = position
                    while probe < bytes.count, isSpace(bytes[probe]) { probe += 1 }
                    guard probe < bytes.count, bytes[probe] == UInt8(ascii: "=") else {
                        attributes.append((name, nil))
                        continue
                    }
                    probe += 1
                    while probe < bytes.count, isSpace(bytes[probe]) { probe += 1 }
                    guard probe < bytes.count else { return nil }
                    if bytes[probe] == UInt8(ascii: "\"") || bytes[probe] == UInt8(ascii: "'") {
                        let quote = bytes[probe]
                        guard let close = bytes[(probe + 1)...].firstIndex(of: quote) else { return nil }
                        attributes.append((name, Array(bytes[(probe + 1)..<close])))
                        position = close + 1
                    } else {
                        let start = probe
                        while probe < bytes.count, !isSpace(bytes[probe]), bytes[probe] != UInt8(ascii: ">") { probe += 1 }
                        attributes.append((name, Array(bytes[start..<probe])))
                        position = probe
                    }
                } else {
                    // Bytes no attribute starts with: skipped.
                    position += 1
                }
            }
            return nil
        }

        /// Whether a tag name starts after the `<` at `index` (`<a`, `</a`): a tag, if it ends.
        static func startsName(_ bytes: [UInt8], at index: Int) -> Bool {
            var position = index + 1
            if position < bytes.count, bytes[position] == UInt8(ascii: "/") { position += 1 }
            return position < bytes.count && isNameStart(bytes[position])
        }

        /// The tag with the attributes that can run or fetch something removed.
        func serialized() -> [UInt8] {
            var out: [UInt8] = [UInt8(ascii: "<")]
            if isClosing {
                out.append(UInt8(ascii: "/"))
                out += rawName
                out.append(UInt8(ascii: ">"))
                return out
            }
            out += rawName
            for (name, value) in attributes {
                guard let kept = Self.keptValue(name: name, value: value) else { continue }
                out.append(UInt8(ascii: " "))
                out += name
                if let kept {
                    // Quoted with whichever quote the value lacks (escaped only when it has both).
                    let quote = kept.contains(UInt8(ascii: "\"")) && !kept.contains(UInt8(ascii: "'")) ? UInt8(ascii: "'") : UInt8(ascii: "\"")
                    var written: [UInt8] = []
                    written.reserveCapacity(kept.count)
                    for byte in kept {
                        switch byte {
                        case quote: written += Array("&quot;".utf8)
                        case UInt8(ascii: "<"): written += Array("&lt;".utf8)
                        default: written.append(byte)
                        }
                    }
                    // What is written is judged again: an escape adds a `&`, which the rules
                    // for links and `url(…)` refuse (an entity could spell a scheme) and CSS
                    // drops; a value is kept only when its written form would be kept as it is.
                    if written.count != kept.count, Self.keptValue(name: name, value: written) != .some(written) {
                        out.removeLast(name.count + 1)
                        continue
                    }
                    out += [UInt8(ascii: "="), quote]
                    out += written
                    out.append(quote)
                }
            }
            if isSelfClosing { out.append(UInt8(ascii: "/")) }
            out.append(UInt8(ascii: ">"))
            return out
        }

        /// Attributes whose value is a link (by local name): kept only when the target is in the
        /// document (`#…`, whatever follows) or a raster `data:image/…`.
        static let linkAttributes: Set<String> = ["href", "src", "action", "formaction", "background", "dynsrc", "lowsrc"]

        /// The value to keep for an attribute (`.some(nil)` for one without a value), `nil` to
        /// drop it.
        static func keptValue(name: [UInt8], value: [UInt8]?) -> [UInt8]?? {
            // Judged on bytes, ASCII case-insensitively, as browsers match names and schemes: a
            // `String` compares grapheme clusters, and a combining mark after `(` or `:` would
            // hide `url(` or `javascript:` from it.
            let local = SVGSanitizer.localName(name)
            if SVGSanitizer.hasPrefix(local, "on") { return nil }
            guard let value else { return .some(nil) }
            // A control character XML forbids (NUL and the other C0 bytes but tab, line feed and
            // carriage return) makes the document one no XML parser reads; the value is dropped
            // rather than judged, since nothing reads it the way it is judged.
            if value.contains(where: Tag.isForbiddenControl) { return nil }
            let squeezed = value.filter { $0 > 0x20 }.map(SVGSanitizer.lower)
            let hasEntity = value.contains(UInt8(ascii: "&"))
            if linkAttributes.contains(String(decoding: local, as: UTF8.self)) {
                // An entity could spell a scheme; a target that starts with `#` has none.
                let fragment = value.first { !Tag.isSpace($0) } == UInt8(ascii: "#")
                guard SVGSanitizer.isLocalReference(String(decoding: value, as: UTF8.self)), fragment || !hasEntity else { return nil }
                return .some(value)
            }
            if local.elementsEqual("style".utf8) { return .some(SVGSanitizer.sanitizeStyle(value)) }
            // Animations may not retarget event handlers or links.
            if local.elementsEqual("attributename".utf8), SVGSanitizer.hasPrefix(squeezed, "on") || SVGSanitizer.find(squeezed, "href", from: 0) != nil {
                return nil
            }
            if SVGSanitizer.find(squeezed, "javascript:", from: 0) != nil || SVGSanitizer.find(squeezed, "vbscript:", from: 0) != nil { return nil }
            guard SVGSanitizer.find(squeezed, "url(", from: 0) != nil else { return .some(value) }
            // An entity could spell a scheme, and a `<` would be written as an entity.
            if hasEntity || value.contains(UInt8(ascii: "<")) { return nil }
            return .some(SVGSanitizer.sanitizeStyle(value))
        }

        static func isNameStart(_ byte: UInt8) -> Bool {
            (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ":") || byte >= 0x80
        }

        static func isNameByte(_ byte: UInt8) -> Bool {
            isNameStart(byte) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "-")
                || byte == UInt8(ascii: ".")
        }

        /// A C0 control byte that XML 1.0 allows nowhere (every one but tab, LF and CR).
        static func isForbiddenControl(_ byte: UInt8) -> Bool {
            byte < 0x20 && byte != 0x09 && byte != 0x0A && byte != 0x0D
        }

        static func isSpace(_ byte: UInt8) -> Bool {
            byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == 0x0C
        }
    }
}
