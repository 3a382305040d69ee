import WebImageCore

/// The counted part of ``SVGRenderBudget``: one pass over the document's bytes before librsvg
/// parses it. Counts are upper bounds (a tag inside a comment or CDATA section counts too).
enum SVGComplexityScan {
    /// Throws when the document has more elements or filter primitives than `budget` allows,
    /// or declares an entity whose text holds markup.
    /// - Throws: `imageTooLarge`.
    static func check(_ b: [UInt8], budget: SVGRenderBudget) throws {
        var elements = 0
        var primitives = 0
        var i = 0
        let count = b.count
        while i + 1 < count {
            guard b[i] == UInt8(ascii: "<") else {
                i += 1
                continue
            }
            let next = b[i + 1]
            if next == UInt8(ascii: "!") {
                try refuseMarkupEntity(b, at: i)
            } else if isNameStart(next) {
                elements += 1
                if isFilterPrimitive(b, nameAt: i + 1) { primitives += 1 }
                if elements > budget.maxElements {
                    throw WebImageError.imageTooLarge(
                        reason: "SVG: more than \(budget.maxElements) elements (the budget's maxElements)")
                }
                if primitives > budget.maxFilterPrimitives {
                    throw WebImageError.imageTooLarge(
                        reason: "SVG: more than \(budget.maxFilterPrimitives) filter primitives (the budget's maxFilterPrimitives)")
                }
            }
            i += 1
        }
    }

    private static func isNameStart(_ c: UInt8) -> Bool {
        (c | 0x20) >= UInt8(ascii: "a") && (c | 0x20) <= UInt8(ascii: "z") || c == UInt8(ascii: "_") || c == UInt8(ascii: ":")
    }

    /// Whether the element name at `start` (after an optional `prefix:`) is `fe` followed by an
    /// upper-case letter: `feGaussianBlur`, `svg:feMorphology`.
    private static func isFilterPrimitive(_ b: [UInt8], nameAt start: Int) -> Bool {
        var j = start
        let end = min(b.count, start + 64)
        var local = start
        while j < end, b[j] != UInt8(ascii: " "), b[j] != UInt8(ascii: ">"), b[j] != UInt8(ascii: "/"),
            b[j] != 0x09, b[j] != 0x0A, b[j] != 0x0D
        {
            if b[j] == UInt8(ascii: ":") { local = j + 1 }
            j += 1
        }
        guard local + 2 < b.count else { return false }
        return b[local] == UInt8(ascii: "f") && b[local + 1] == UInt8(ascii: "e")
            && b[local + 2] >= UInt8(ascii: "A") && b[local + 2] <= UInt8(ascii: "Z")
    }

    /// At `<!ENTITY`: refuses a replacement text (quoted) that holds `<`.
    private static func refuseMarkupEntity(_ b: [UInt8], at i: Int) throws {
        let marker = Array("<!ENTITY".utf8)
        guard i + marker.count <= b.count, (0..<marker.count).allSatisfy({ b[i + $0] == marker[$0] }) else { return }
        var j = i + marker.count
        while j < b.count, b[j] != UInt8(ascii: "\""), b[j] != UInt8(ascii: "'"), b[j] != UInt8(ascii: ">") { j += 1 }
        guard j < b.count, b[j] != UInt8(ascii: ">") else { return }
        let quote = b[j]
        j += 1
        while j < b.count, b[j] != quote {
            if b[j] == UInt8(ascii: "<") {
                throw WebImageError.imageTooLarge(reason: "SVG: an entity holds markup (it could multiply elements past the budget); refused")
            }
            j += 1
        }
    }
}
