import WebImage

/// imgproxy's `jpeg_options` (`jpgo`) and the `jpeg-*` settings: every field optional, `nil`
/// taking the service's setting (the URL's over the service's, field by field).
///
/// `progressive`, `no_subsample` and `quant_table` (mozjpeg's table sets 0–8) change the file
/// (`JPEGEncodeSettings`). `trellis_quant`, `overshoot_deringing` and `optimize_scans` are
/// mozjpeg features that libjpeg-turbo, the JPEG library here, does not have: they are checked
/// and accepted, and change nothing.
public struct JPEGOptions: Sendable, Hashable {
    public var progressive: Bool?
    public var noSubsample: Bool?
    /// Accepted; no effect (mozjpeg only).
    public var trellisQuant: Bool?
    /// Accepted; no effect (mozjpeg only).
    public var overshootDeringing: Bool?
    /// Accepted; no effect (mozjpeg only).
    public var optimizeScans: Bool?
    /// 0…8, mozjpeg's table sets (`JPEGEncodeSettings.quantTable` lists them): 0 the JPEG
    /// Annex K tables, 1 flat tables, 2–8 the tuned and published ones.
    public var quantTable: Int?

    /// Every field the service's.
    public init(
        progressive: Bool? = nil, noSubsample: Bool? = nil, trellisQuant: Bool? = nil, overshootDeringing: Bool? = nil,
        optimizeScans: Bool? = nil, quantTable: Int? = nil
    ) {
        self.progressive = progressive
        self.noSubsample = noSubsample
        self.trellisQuant = trellisQuant
        self.overshootDeringing = overshootDeringing
        self.optimizeScans = optimizeScans
        self.quantTable = quantTable
    }

    /// These fields over `base`'s.
    func over(_ base: JPEGOptions) -> JPEGOptions {
        JPEGOptions(
            progressive: progressive ?? base.progressive, noSubsample: noSubsample ?? base.noSubsample,
            trellisQuant: trellisQuant ?? base.trellisQuant, overshootDeringing: overshootDeringing ?? base.overshootDeringing,
            optimizeScans: optimizeScans ?? base.optimizeScans, quantTable: quantTable ?? base.quantTable)
    }

    /// What the encoder is given (the fields without effect left out).
    var encodeSettings: JPEGEncodeSettings {
        JPEGEncodeSettings(progressive: progressive ?? false, noSubsample: noSubsample ?? false, quantTable: quantTable ?? 0)
    }

    /// A stable text of the fields that change the file, for cache keys; `nil` when none is set.
    var canonicalText: String? {
        guard progressive != nil || noSubsample != nil || quantTable != nil else { return nil }
        let table = quantTable.map { $0 == 0 ? ":annexk" : $0 == 1 ? ":flat" : ":qt\($0)" } ?? ""
        return "jpgo:\(OptionText.flag(progressive)):\(OptionText.flag(noSubsample))" + table
    }

    /// Parses `progressive:no_subsample:trellis_quant:overshoot_deringing:optimize_scans:quant_table`,
    /// each optional; a bad one throws naming `option`.
    static func parse(_ values: [String], option: String = "jpeg_options") throws(ImageServiceError) -> JPEGOptions {
        let args = OptionArguments(option: option, values: values)
        try args.requireCount(1...6)
        var result = JPEGOptions()
        result.progressive = try args.optionalBool(0)
        result.noSubsample = try args.optionalBool(1)
        result.trellisQuant = try args.optionalBool(2)
        result.overshootDeringing = try args.optionalBool(3)
        result.optimizeScans = try args.optionalBool(4)
        if let text = args.nonEmpty(5) {
            guard let table = Int(text), (0...8).contains(table) else { throw args.bad("quant_table '\(text)' is not a table number from 0 to 8") }
            result.quantTable = table
        }
        return result
    }
}

/// Text pieces of the cache-key forms.
enum OptionText {
    /// `1`, `0`, or `-` for the service's.
    static func flag(_ value: Bool?) -> String { value.map { $0 ? "1" : "0" } ?? "-" }
}

extension OptionArguments {
    /// The boolean at `index`, `nil` when absent or empty.
    func optionalBool(_ index: Int) throws(ImageServiceError) -> Bool? {
        nonEmpty(index) == nil ? nil : try bool(index)
    }
}
