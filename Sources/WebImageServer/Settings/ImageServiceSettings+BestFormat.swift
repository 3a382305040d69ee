import Foundation

extension ImageServiceSettings {
    /// The `best-format-*` settings (imgproxy's `IMGPROXY_BEST_FORMAT_*`), see ``BestFormatSettings``.
    static let bestFormatSettings: [Setting] = [
        Setting(name: "best-format-candidates", meaning: "formats format:best tries, in order, comma-separated (webp and avif only for clients whose Accept names them)", defaultValue: "avif,webp,jpg,png", repeatable: false),
        Setting(name: "best-format-complexity-threshold", meaning: "results less complex than this (ImageComplexity: flat graphics under 3, photos 4-10) may also be encoded losslessly by format:best", defaultValue: "3", repeatable: false),
        Setting(name: "best-format-max-resolution", meaning: "megapixels above which format:best picks one format without trying the others; 0 = no limit", defaultValue: "0", repeatable: false),
        Setting(name: "best-format-by-default", meaning: "use format:best for requests that name no format", defaultValue: "false", repeatable: false),
        Setting(name: "best-format-allow-skips", meaning: "with format:best, answer SVG and skip_processing sources as they are", defaultValue: "false", repeatable: false),
    ]

    /// Reads the `best-format-*` settings into `configuration`.
    static func applyBestFormat(_ values: [String: [String]], to configuration: inout ImageServiceConfiguration) throws(Problem) {
        func one(_ name: String) -> String? { values[name]?.last }
        func bool(_ name: String) throws(Problem) -> Bool? {
            guard let text = one(name) else { return nil }
            switch text.lowercased() {
            case "1", "t", "true", "yes", "on": return true
            case "0", "f", "false", "no", "off": return false
            default: throw Problem(description: "\(name): '\(text)' is not true or false")
            }
        }
        if let text = one("best-format-candidates") {
            var formats: [OutputFormat] = []
            for name in text.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) {
                guard let format = OutputFormat(name: name) else { throw Problem(description: "best-format-candidates: '\(name)' is not an output format") }
                if !formats.contains(format) { formats.append(format) }
            }
            guard !formats.isEmpty else { throw Problem(description: "best-format-candidates: name at least one format") }
            configuration.bestFormat.candidates = formats
        }
        if let text = one("best-format-complexity-threshold") {
            guard let value = Double(text), value.isFinite, value >= 0, value <= 1000 else {
                throw Problem(description: "best-format-complexity-threshold: '\(text)' is not a number from 0 to 1000")
            }
            configuration.bestFormat.complexityThreshold = value
        }
        if let text = one("best-format-max-resolution") {
            guard let value = Double(text), value.isFinite, value >= 0, value <= 10_000 else {
                throw Problem(description: "best-format-max-resolution: '\(text)' is not megapixels from 0 to 10000")
            }
            configuration.bestFormat.maxResolution = value
        }
        if let value = try bool("best-format-by-default") { configuration.bestFormat.byDefault = value }
        if let value = try bool("best-format-allow-skips") { configuration.bestFormat.allowSkips = value }
    }
}
