extension ImageServiceConfiguration {
    /// The server settings that change rendered bytes without showing in the URL, as the text
    /// that enters every result-store key (``ResultStoreKey``): `strip-color-profile`,
    /// `watermark-opacity`, the quality search, `best`, `jxl-effort` and `avif-speed`. Instances
    /// sharing a result store with other values of these settings keep apart entries, so none answers another's render. (Presets are already in
    /// the key through the options they expand to, the watermark image through its identity;
    /// limits refuse requests but never change a result's bytes.)
    public var outputFingerprint: String {
        "strip-color-profile=\(stripColorProfile) watermark-opacity=\(watermarkOpacity)" + autoqualityFingerprint + bestFormatFingerprint
            + encoderFingerprint + optionDefaultsFingerprint + (preserveHDR ? " preserve-hdr=true" : "")
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

extension ImageServiceConfiguration {
    /// The `jxl-effort`, `avif-speed` and `avif-subsample` settings' part of
    /// ``outputFingerprint`` (empty at their defaults).
    var encoderFingerprint: String {
        (jxlEffort == 4 ? "" : " jxl-effort=\(jxlEffort)") + (avifSpeed.map { " avif-speed=\($0)" } ?? "")
            + (avifOptions.canonicalText.map { " " + $0 } ?? "")
    }
}

extension ImageServiceConfiguration {
    /// The settings under the URL options `unsharp_masking`, `jpeg_options`, `png_options` and
    /// `webp_options`: their part of ``outputFingerprint`` (empty at their defaults).
    var optionDefaultsFingerprint: String {
        (unsharpMasking == .serviceDefault ? "" : " " + (unsharpMasking.canonicalText ?? ""))
            + [jpegOptions.canonicalText, pngOptions.canonicalText, webpOptions.canonicalText].compactMap { $0.map { " " + $0 } }.joined()
    }
}
