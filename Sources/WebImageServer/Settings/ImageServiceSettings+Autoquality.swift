import Foundation

extension ImageServiceSettings {
    /// The `autoquality-*` settings (imgproxy's `IMGPROXY_AUTOQUALITY_*`): the quality search
    /// of every request without an `aq` option.
    static let autoqualitySettings: [Setting] = [
        Setting(name: "autoquality-method", meaning: "quality search for requests without the aq option: none, size (target bytes), dssim (target DSSIM) or ssimulacra2 (target score)", defaultValue: "none", repeatable: false),
        Setting(name: "autoquality-target", meaning: "the search's target: bytes for size, DSSIM for dssim, SSIMULACRA2 points for ssimulacra2", defaultValue: "size 10240, dssim 0.02, ssimulacra2 80", repeatable: false),
        Setting(name: "autoquality-min", meaning: "lowest quality the search tries", defaultValue: "size 10, dssim 70, ssimulacra2 30", repeatable: false),
        Setting(name: "autoquality-max", meaning: "highest quality the search tries", defaultValue: "size 80, dssim 80, ssimulacra2 95", repeatable: false),
        Setting(name: "autoquality-allowed-error", meaning: "how far past the target a result may be and end the search (size: a fraction of the target)", defaultValue: "size 0.05, dssim 0.001, ssimulacra2 2", repeatable: false),
        Setting(name: "autoquality-format-min", meaning: "lowest quality per format, FORMAT=QUALITY,… (e.g. avif=60)", defaultValue: "none", repeatable: false),
        Setting(name: "autoquality-format-max", meaning: "highest quality per format, FORMAT=QUALITY,… (e.g. avif=65)", defaultValue: "none", repeatable: false),
    ]

    /// Reads the `autoquality-*` settings into `configuration`, checked as the URL option is.
    static func applyAutoquality(_ values: [String: [String]], to configuration: inout ImageServiceConfiguration) throws(Problem) {
        func one(_ name: String) -> String? { values[name]?.last }
        let names = ["autoquality-target", "autoquality-min", "autoquality-max", "autoquality-allowed-error"]
        if let method = one("autoquality-method") {
            guard !method.isEmpty else { throw Problem(description: "autoquality-method: expected none, size, dssim or ssimulacra2") }
            let arguments = [method] + names.map { one($0) ?? "" }
            do {
                configuration.autoquality = try AutoQuality.parse(arguments)
            } catch {
                throw Problem(description: "autoquality: \(error.reason)")
            }
        } else if let given = names.first(where: { one($0) != nil }) {
            throw Problem(description: "\(given): set autoquality-method too")
        }
        for (name, keyPath) in [("autoquality-format-min", \ImageServiceConfiguration.autoqualityFormatMin), ("autoquality-format-max", \.autoqualityFormatMax)] {
            guard let text = one(name) else { continue }
            do { configuration[keyPath: keyPath] = try AutoQuality.formatQualities(text) } catch { throw Problem(description: "\(name): \(error.reason)") }
        }
    }
}
