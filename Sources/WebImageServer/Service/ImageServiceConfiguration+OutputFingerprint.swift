extension ImageServiceConfiguration {
    /// The server settings that change rendered bytes without showing in the URL, as the text
    /// that enters every result-store key (``ResultStoreKey``): `strip-color-profile` and
    /// `watermark-opacity`. Instances sharing a result store with other values of these
    /// settings keep apart entries, so none answers another's render. (Presets are already in
    /// the key through the options they expand to, the watermark image through its identity;
    /// limits refuse requests but never change a result's bytes.)
    public var outputFingerprint: String {
        "strip-color-profile=\(stripColorProfile) watermark-opacity=\(watermarkOpacity)" + autoqualityFingerprint + bestFormatFingerprint
    }
}

extension ImageServiceConfiguration {
    /// The `autoquality-*` settings' part of ``outputFingerprint`` (empty when they are off, so
    /// existing keys stay the same).
    var autoqualityFingerprint: String {
        guard autoquality.method != .none else { return "" }
        let bounds = { (table: [OutputFormat: Int]) in table.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.key.rawValue)=\($0.value)" }.joined(separator: ",") }
        return " autoquality=\(autoquality.canonicalText) min=\(bounds(autoqualityFormatMin)) max=\(bounds(autoqualityFormatMax))"
    }
}

extension ImageServiceConfiguration {
    /// The `best-format-*` settings' part of ``outputFingerprint`` (empty at their defaults).
    var bestFormatFingerprint: String {
        guard bestFormat != BestFormatSettings() else { return "" }
        let candidates = bestFormat.candidates.map(\.rawValue).joined(separator: ",")
        return " best=\(candidates):\(bestFormat.complexityThreshold):\(bestFormat.maxResolution):\(bestFormat.byDefault):\(bestFormat.allowSkips)"
    }
}
