extension ImageServiceConfiguration {
    /// The server settings that change rendered bytes without showing in the URL, as the text
    /// that enters every result-store key (``ResultStoreKey``): `strip-color-profile`,
    /// `watermark-opacity`, `jxl-effort` and `avif-speed`. Instances sharing a result store with other values of these
    /// settings keep apart entries, so none answers another's render. (Presets are already in
    /// the key through the options they expand to, the watermark image through its identity;
    /// limits refuse requests but never change a result's bytes.)
    public var outputFingerprint: String {
        "strip-color-profile=\(stripColorProfile) watermark-opacity=\(watermarkOpacity) jxl-effort=\(jxlEffort) "
            + "avif-speed=\(avifSpeed.map(String.init) ?? "auto")"
    }
}
