import Foundation

/// The arguments of one option segment, with typed readers that throw errors naming the option.
struct OptionArguments {
    let option: String
    let values: [String]

    /// The largest width or height a URL may ask for (the result limit is checked later too).
    static let maximumDimension = 16_384

    func bad(_ reason: String) -> ImageServiceError { .badOption(option: option, reason: reason) }

    func requireCount(_ range: ClosedRange<Int>) throws(ImageServiceError) {
        guard range.contains(values.count) else {
            throw bad(range.lowerBound == range.upperBound
                ? "expected \(range.lowerBound) argument(s), got \(values.count)"
                : "expected \(range.lowerBound) to \(range.upperBound) arguments, got \(values.count)")
        }
    }

    func nonEmpty(_ index: Int) -> String? {
        index < values.count && !values[index].isEmpty ? values[index] : nil
    }

    func bool(_ index: Int) throws(ImageServiceError) -> Bool {
        switch values[index] {
        case "1", "t", "T", "true", "TRUE", "True": return true
        case "0", "f", "F", "false", "FALSE", "False": return false
        default: throw bad("'\(values[index])' is not a boolean (1/t/true or 0/f/false)")
        }
    }

    func double(_ index: Int) throws(ImageServiceError) -> Double {
        guard let value = Double(values[index]), value.isFinite else { throw bad("'\(values[index])' is not a number") }
        return value
    }

    func dimension(_ index: Int) throws(ImageServiceError) -> Int {
        guard let value = Int(values[index]), value >= 0, value <= Self.maximumDimension else {
            throw bad("'\(values[index])' is not a size from 0 to \(Self.maximumDimension)")
        }
        return value
    }

    func quality(_ index: Int) throws(ImageServiceError) -> Int {
        guard index < values.count, let value = Int(values[index]), (0...100).contains(value) else {
            throw bad("quality must be an integer from 0 to 100")
        }
        return value
    }

    func sigma(_ index: Int) throws(ImageServiceError) -> Double {
        let value = try double(index)
        guard value >= 0, value <= 100 else { throw bad("sigma must be from 0 to 100") }
        return value
    }

    func byte(_ index: Int) throws(ImageServiceError) -> UInt8 {
        guard let value = UInt8(values[index]) else { throw bad("'\(values[index])' is not a channel value 0…255") }
        return value
    }

    func format(_ index: Int) throws(ImageServiceError) -> OutputFormat {
        guard let format = OutputFormat(name: values[index]) else { throw bad("unsupported format '\(values[index])'") }
        return format
    }

    func resizingType(_ text: String) throws(ImageServiceError) -> ResizingType {
        guard let type = ResizingType(rawValue: text) else { throw bad("unknown resizing type '\(text)'") }
        return type
    }

    func hexColor(_ index: Int) throws(ImageServiceError) -> RGBColor {
        var text = values[index]
        if text.hasPrefix("#") { text.removeFirst() }
        if text.count == 3 { text = text.map { "\($0)\($0)" }.joined() }
        guard text.count == 6, let bytes = HexBytes.decode(text) else { throw bad("'\(values[index])' is not a hex color") }
        return RGBColor(red: bytes[0], green: bytes[1], blue: bytes[2])
    }

    /// A gravity starting at `index`: `type[:x:y]`, `sm`, or `fp:x:y`.
    func gravity(from index: Int, allowSmart: Bool) throws(ImageServiceError) -> Gravity {
        let type = values[index]
        let rest = Array(values.dropFirst(index + 1))
        if type.isEmpty && rest.allSatisfy(\.isEmpty) { return .center }
        switch type {
        case "sm":
            guard allowSmart else { throw bad("smart gravity is not allowed here") }
            guard rest.isEmpty else { throw bad("smart gravity takes no offsets") }
            return .smart
        case "fp":
            guard rest.count == 2 else { throw bad("focus point needs x and y") }
            let x = try double(index + 1), y = try double(index + 2)
            guard (0...1).contains(x), (0...1).contains(y) else { throw bad("focus point must be within 0…1") }
            return .focusPoint(x: x, y: y)
        default:
            guard let anchor = Gravity.Anchor(rawValue: type) else { throw bad("unknown gravity '\(type)'") }
            guard rest.count <= 2 else { throw bad("too many gravity arguments") }
            let x = rest.count > 0 && !rest[0].isEmpty ? try double(index + 1) : 0
            let y = rest.count > 1 && !rest[1].isEmpty ? try double(index + 2) : 0
            return .anchor(anchor, xOffset: x, yOffset: y)
        }
    }
}
