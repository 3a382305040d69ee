import WebImage

/// imgproxy's `webp_options` (`webpo`) and the `webp-*` settings: compression method, smart
/// subsampling and content preset (`WebPEncodeSettings`); every field optional, `nil` taking
/// the service's.
public struct WebPOptions: Sendable, Hashable {
    public var compression: WebPEncodeSettings.Compression?
    public var smartSubsample: Bool?
    public var preset: WebPEncodeSettings.Preset?

    /// Every field the service's.
    public init(compression: WebPEncodeSettings.Compression? = nil, smartSubsample: Bool? = nil, preset: WebPEncodeSettings.Preset? = nil) {
        self.compression = compression
        self.smartSubsample = smartSubsample
        self.preset = preset
    }

    /// These fields over `base`'s.
    func over(_ base: WebPOptions) -> WebPOptions {
        WebPOptions(compression: compression ?? base.compression, smartSubsample: smartSubsample ?? base.smartSubsample, preset: preset ?? base.preset)
    }

    /// What the encoder is given.
    var encodeSettings: WebPEncodeSettings {
        WebPEncodeSettings(compression: compression ?? .lossy, smartSubsample: smartSubsample ?? false, preset: preset ?? .default)
    }

    /// A stable text for cache keys; `nil` when no field is set.
    var canonicalText: String? {
        guard self != WebPOptions() else { return nil }
        return "webpo:\(compression?.rawValue ?? "-"):\(OptionText.flag(smartSubsample)):\(preset?.rawValue ?? "-")"
    }

    /// Parses `compression:smart_subsample:preset`, each optional; a bad one throws naming `option`.
    static func parse(_ values: [String], option: String = "webp_options") throws(ImageServiceError) -> WebPOptions {
        let args = OptionArguments(option: option, values: values)
        try args.requireCount(1...3)
        var result = WebPOptions()
        if let text = args.nonEmpty(0) {
            guard let compression = WebPEncodeSettings.Compression(rawValue: text) else {
                throw args.bad("compression '\(text)' is not lossy, near_lossless or lossless")
            }
            result.compression = compression
        }
        result.smartSubsample = try args.optionalBool(1)
        if let text = args.nonEmpty(2) {
            guard let preset = WebPEncodeSettings.Preset(rawValue: text) else {
                throw args.bad("preset '\(text)' is not one of " + WebPEncodeSettings.Preset.allCases.map(\.rawValue).joined(separator: ", "))
            }
            result.preset = preset
        }
        return result
    }
}
