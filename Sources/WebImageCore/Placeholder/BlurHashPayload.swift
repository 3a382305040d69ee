import Foundation

/// A BlurHash string checked and split into its fields.
struct BlurHashPayload {
    /// The component counts (first character).
    let components: BlurHashComponents
    /// The quantised largest AC value, 0…82 (second character).
    let quantisedMaximum: Int
    /// The DC term as 0xRRGGBB sRGB (characters 3–6).
    let dcValue: Int
    /// The AC terms, 0…6858 each (two characters each).
    let acValues: [Int]

    /// The longest valid BlurHash: 9 × 9 components.
    static let maxLength = 4 + 2 * 81

    /// Parses `text`.
    /// - Throws: ``WebImageError/badImageData(reason:)`` naming what is wrong.
    init(_ text: String) throws(WebImageError) {
        let bytes = Array(text.utf8.prefix(Self.maxLength + 1))
        guard bytes.count >= 6 else {
            throw .badImageData(reason: "a BlurHash has at least 6 characters, this one \(bytes.count)")
        }
        guard bytes.count <= Self.maxLength else {
            throw .badImageData(reason: "a BlurHash has at most \(Self.maxLength) characters")
        }
        guard let sizeFlag = Base83.decode(bytes[0..<1]), sizeFlag < 81 else {
            throw .badImageData(reason: "the BlurHash's first character is not a component count")
        }
        let components = BlurHashComponents(checkedX: sizeFlag % 9 + 1, y: sizeFlag / 9 + 1)
        let expected = 4 + 2 * components.x * components.y
        guard bytes.count == expected else {
            throw .badImageData(
                reason: "a BlurHash with \(components) components has \(expected) characters, this one \(bytes.count)")
        }
        guard let maximum = Base83.decode(bytes[1..<2]), let dc = Base83.decode(bytes[2..<6]) else {
            throw .badImageData(reason: "the BlurHash has a character outside the base-83 alphabet")
        }
        guard dc <= 0xFFFFFF else { throw .badImageData(reason: "the BlurHash's average colour is out of range") }
        var ac: [Int] = []
        ac.reserveCapacity(components.x * components.y - 1)
        var index = 6
        while index < bytes.count {
            guard let value = Base83.decode(bytes[index..<(index + 2)]) else {
                throw .badImageData(reason: "the BlurHash has a character outside the base-83 alphabet")
            }
            guard value < 19 * 19 * 19 else {
                throw .badImageData(reason: "the BlurHash has a component out of range")
            }
            ac.append(value)
            index += 2
        }
        self.components = components
        self.quantisedMaximum = maximum
        self.dcValue = dc
        self.acValues = ac
    }

    /// The components as linear RGB, DC first, AC terms scaled by `punch`.
    func colors(punch: Double) -> [SIMD3<Double>] {
        let table = SRGBTransfer.toLinear
        var colors = [
            SIMD3(table[dcValue >> 16], table[(dcValue >> 8) & 255], table[dcValue & 255])
        ]
        let maximum = Double(quantisedMaximum + 1) / 166 * punch
        func unquantise(_ q: Int) -> Double {
            let v = (Double(q) - 9) / 9
            return (v < 0 ? -(v * v) : v * v) * maximum
        }
        for value in acValues {
            colors.append(SIMD3(unquantise(value / (19 * 19)), unquantise((value / 19) % 19), unquantise(value % 19)))
        }
        return colors
    }
}
