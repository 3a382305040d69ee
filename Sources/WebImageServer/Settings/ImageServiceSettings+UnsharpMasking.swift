import Foundation

extension ImageServiceSettings {
    /// The `unsharp-masking-*` settings (imgproxy's `IMGPROXY_UNSHARP_MASKING_*`): what requests
    /// whose `unsharp_masking` option leaves a field out (or that have none) get.
    static let unsharpMaskingSettings: [Setting] = [
        Setting(name: "unsharp-masking-mode", meaning: "when results are sharpened with the 3×3 unsharp mask: auto (only downscaled results of requests without sharpen), none or always (imgproxy Pro's default is auto)", defaultValue: "none", repeatable: false),
        Setting(name: "unsharp-masking-weight", meaning: "how much a pixel's 8 neighbours count in the unsharp mask, greater than 0; larger is sharper", defaultValue: "1", repeatable: false),
        Setting(name: "unsharp-masking-divider", meaning: "the unsharp mask's divisor, greater than 0; smaller is sharper", defaultValue: "24", repeatable: false),
    ]

    /// Reads the `unsharp-masking-*` settings into `configuration`, checked as the URL option is.
    static func applyUnsharpMasking(_ values: [String: [String]], to configuration: inout ImageServiceConfiguration) throws(Problem) {
        let arguments = ["unsharp-masking-mode", "unsharp-masking-weight", "unsharp-masking-divider"].map { values[$0]?.last ?? "" }
        guard arguments.contains(where: { !$0.isEmpty }) else { return }
        do {
            configuration.unsharpMasking = try UnsharpMasking.parse(arguments).over(UnsharpMasking.serviceDefault)
        } catch {
            throw Problem(description: "unsharp-masking: \(error)")
        }
    }
}
