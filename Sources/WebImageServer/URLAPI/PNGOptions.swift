import WebImage

/// imgproxy's `png_options` (`pngo`) and the `png-*` settings: interlacing and palette
/// quantisation (`PNGEncodeSettings`); every field optional, `nil` taking the service's.
public struct PNGOptions: Sendable, Hashable {
    public var interlaced: Bool?
    public var quantize: Bool?
    /// 2…256.
    public var quantizationColors: Int?

    /// Every field the service's.
    public init(interlaced: Bool? = nil, quantize: Bool? = nil, quantizationColors: Int? = nil) {
        self.interlaced = interlaced
        self.quantize = quantize
        self.quantizationColors = quantizationColors
    }

    /// These fields over `base`'s.
    func over(_ base: PNGOptions) -> PNGOptions {
        PNGOptions(
            interlaced: interlaced ?? base.interlaced, quantize: quantize ?? base.quantize,
            quantizationColors: quantizationColors ?? base.quantizationColors)
    }

    /// What the encoder is given.
    var encodeSettings: PNGEncodeSettings {
        PNGEncodeSettings(interlaced: interlaced ?? false, quantize: quantize ?? false, quantizationColors: quantizationColors ?? 256)
    }

    /// A stable text for cache keys; `nil` when no field is set.
    var canonicalText: String? {
        guard self != PNGOptions() else { return nil }
        return "pngo:\(OptionText.flag(interlaced)):\(OptionText.flag(quantize)):\(quantizationColors.map(String.init) ?? "-")"
    }

    /// Parses `interlaced:quantize:quantization_colors`, each optional; a bad one throws naming `option`.
    static func parse(_ values: [String], option: String = "png_options") throws(ImageServiceError) -> PNGOptions {
        let args = OptionArguments(option: option, values: values)
        try args.requireCount(1...3)
        var result = PNGOptions()
        result.interlaced = try args.optionalBool(0)
        result.quantize = try args.optionalBool(1)
        if let text = args.nonEmpty(2) {
            guard let colors = Int(text), (2...256).contains(colors) else {
                throw args.bad("quantization_colors '\(text)' is not a whole number from 2 to 256")
            }
            result.quantizationColors = colors
        }
        return result
    }
}
