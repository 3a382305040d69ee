import Foundation

/// imgproxy's unsharp masking (`unsharp_masking`/`ush` and the `unsharp-masking-*` settings): a
/// 3×3 sharpening of the result when it was downscaled (`auto`), always, or never.
///
/// Each colour channel becomes `p + weight ÷ divider × (8p − the sum of its 8 neighbours)`: the
/// mask's centre is `divider + 8 × weight`, its neighbours `−weight`, all over `divider`. A larger
/// weight or a smaller divider sharpens more, as imgproxy documents. Alpha is kept. Every field
/// is optional: `nil` takes the service's setting.
public struct UnsharpMasking: Sendable, Hashable {
    /// When the mask applies.
    public enum Mode: String, Sendable, Hashable, CaseIterable {
        /// Only when the image is downscaled and the request has no `sharpen`.
        case auto
        /// Never.
        case none
        /// Always.
        case always
    }

    /// When it applies; `nil` = the service's.
    public var mode: Mode?
    /// How much the neighbours count (greater than 0); `nil` = the service's.
    public var weight: Double?
    /// The strength's divisor (greater than 0); `nil` = the service's.
    public var divider: Double?

    /// The largest weight or divider accepted.
    static let maximumValue = 1_000_000.0

    /// All fields from the service.
    public init(mode: Mode? = nil, weight: Double? = nil, divider: Double? = nil) {
        self.mode = mode
        self.weight = weight
        self.divider = divider
    }

    /// The built-in setting: off (`none`), weight 1, divider 24 (imgproxy's weight and
    /// divider; imgproxy Pro's mode default is `auto`, open-source imgproxy has none).
    public static let serviceDefault = UnsharpMasking(mode: UnsharpMasking.Mode.none, weight: 1, divider: 24)

    /// These fields over `base`'s.
    func over(_ base: UnsharpMasking) -> UnsharpMasking {
        UnsharpMasking(mode: mode ?? base.mode, weight: weight ?? base.weight, divider: divider ?? base.divider)
    }

    /// A stable text for the cache key; `nil` when every field is the service's.
    var canonicalText: String? {
        guard self != UnsharpMasking() else { return nil }
        return "ush:\(mode?.rawValue ?? "-"):\(weight.map { "\($0)" } ?? "-"):\(divider.map { "\($0)" } ?? "-")"
    }

    /// Parses `mode:weight:divider`, each optional (empty = the service's); a bad one throws
    /// ``ImageServiceError/badOption(option:reason:)`` naming `option`.
    static func parse(_ values: [String], option: String = "unsharp_masking") throws(ImageServiceError) -> UnsharpMasking {
        let bad = { (reason: String) in ImageServiceError.badOption(option: option, reason: reason) }
        guard (1...3).contains(values.count) else { throw bad("expected mode:weight:divider, got \(values.count) arguments") }
        var result = UnsharpMasking()
        if !values[0].isEmpty {
            guard let mode = Mode(rawValue: values[0]) else { throw bad("mode '\(values[0])' is not auto, none or always") }
            result.mode = mode
        }
        func positive(_ index: Int, _ name: String) throws(ImageServiceError) -> Double? {
            guard index < values.count, !values[index].isEmpty else { return nil }
            guard let value = Double(values[index]), value.isFinite, value > 0, value <= maximumValue else {
                throw bad("\(name) '\(values[index])' is not a number greater than 0 and at most \(Int(maximumValue))")
            }
            return value
        }
        result.weight = try positive(1, "weight")
        result.divider = try positive(2, "divider")
        return result
    }
}
