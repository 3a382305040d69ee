import Foundation
import WebImage

/// `/info` JSON as the service line's output (SPEC V-14): requests under `/info`, which take
/// `blurhash_components`/`bhc` besides the processing options, answered with
/// ``ImageProcessor/info(_:options:components:metrics:decodes:)``. Never the fallback image or a
/// watermark.
struct InfoOutput: ServiceOutput {
    static let pathPrefix = "/info"
    static let answersWithFallback = false

    /// The BlurHash components asked for; `nil` chooses them from the aspect ratio.
    let components: BlurHashComponents?
    /// `perceptual_hash`, `average`, `palette`.
    let extras: InfoExtras
    var variant: FormatVariant { .any }

    /// Takes the last `blurhash_components:%x:%y` (`bhc`) segment, each 1…9, and the
    /// ``InfoExtras`` segments.
    static func settings(from segments: inout [String]) throws(ImageServiceError) -> (BlurHashComponents?, InfoExtras) {
        var components: BlurHashComponents?
        var extras = InfoExtras()
        var rest: [String] = []
        for segment in segments {
            if let parsed = try Self.components(segment) {
                components = parsed
            } else if try !extras.take(segment) {
                rest.append(segment)
            }
        }
        segments = rest
        return (components, extras)
    }

    init(
        settings: (BlurHashComponents?, InfoExtras), options: ProcessingOptions, path: ImageRequestPath, accept: String?,
        negotiation: FormatNegotiation
    ) {
        (components, extras) = settings
    }

    /// The components of a `blurhash_components:%x:%y` (`bhc`) segment; `nil` for any other
    /// option.
    static func components(_ segment: String) throws(ImageServiceError) -> BlurHashComponents? {
        let parts = segment.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard let name = parts.first, name == "blurhash_components" || name == "bhc" else { return nil }
        guard parts.count == 3, let x = Int(parts[1]), let y = Int(parts[2]), let components = BlurHashComponents(x: x, y: y) else {
            throw .badOption(option: name, reason: "expects two whole numbers from 1 to 9 (x:y)")
        }
        return components
    }

    /// What stands for the output format in the ETag and the result-store key: `info:` and the
    /// BlurHash components (`auto` when chosen from the aspect ratio), so it never equals an
    /// image's.
    var formatChoice: String {
        "info:" + (components?.description ?? "auto") + (extras.description.isEmpty ? "" : ":" + extras.description)
    }

    func drawsWatermark(_ options: ProcessingOptions) -> Bool { false }

    func storeChoice(_ options: ProcessingOptions, watermark: String?) -> String? { formatChoice }

    func storedForm(contentType: String, negotiation: FormatNegotiation) -> AnswerForm? {
        contentType == "application/json" ? form : nil
    }

    func form(sourceFormat: ImageFormat, options: ProcessingOptions, negotiation: FormatNegotiation) -> AnswerForm { form }

    private var form: AnswerForm {
        AnswerForm(contentType: "application/json", fileExtension: "json", etagFormat: formatChoice, format: nil, varyAccept: false)
    }

    func make(
        _ source: SourceImage, form: AnswerForm, options: ProcessingOptions, watermark: LoadedWatermark?, processor: ImageProcessor,
        metrics: ServiceMetrics, decodes: SharedCount
    ) throws(ImageServiceError) -> RenderedResult {
        try processor.info(source, options: options, components: components, extras: extras, metrics: metrics, decodes: decodes)
    }
}
