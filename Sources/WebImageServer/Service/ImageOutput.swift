import Foundation
import WebImage

/// A rendered image as the service line's output (SPEC V-2 … V-6): the output format chosen
/// from the URL or `Accept`, the source's bytes as they are for `raw` and `skip_processing`,
/// otherwise ``ImageProcessor/render(_:options:as:watermark:metrics:decodes:)``.
struct ImageOutput: ServiceOutput {
    static let pathPrefix = ""
    static let answersWithFallback = true

    /// How the output format is chosen.
    let format: FormatChoice
    let variant: FormatVariant

    /// The URL fixes the format (`format` option or extension) for every `Accept`; otherwise
    /// `Accept` chooses its bucket.
    init(settings: Void, options: ProcessingOptions, path: ImageRequestPath, accept: String?, negotiation: FormatNegotiation) {
        let best = negotiation.best
        if options.bestFormat || path.extensionIsBest || (best.byDefault && options.format == nil && path.extensionFormat == nil) {
            variant = best.variant(accept: accept)
            format = .best(BestFormatRequest(candidates: best.candidates(for: variant), settings: best))
        } else if let fixed = options.format ?? path.extensionFormat {
            (format, variant) = (.fixed(fixed), .any)
        } else {
            variant = negotiation.variant(accept: accept)
            format = FormatChoice(negotiated: variant)
        }
    }

    func drawsWatermark(_ options: ProcessingOptions) -> Bool { options.watermark != nil && !options.raw }

    /// The format choice; `nil` for `raw` (the source as is is never stored).
    func storeChoice(_ options: ProcessingOptions, watermark: String?) -> String? {
        guard !options.raw else { return nil }
        return format.keyText + (watermark.map { "\nwatermark:" + $0 } ?? "")
    }

    func storedForm(contentType: String, negotiation: FormatNegotiation) -> AnswerForm? {
        guard let stored = OutputFormat.allCases.first(where: { $0.imageFormat.mimeType == contentType }) else { return nil }
        return AnswerForm(
            contentType: contentType, fileExtension: stored.imageFormat.fileExtension, etagFormat: stored.rawValue, format: stored,
            varyAccept: format.varies(negotiating: negotiation.negotiates))
    }

    /// `raw`: the source's own type, tagged `raw`; `skip_processing` listing the output format
    /// of a source already in it: the source as is; otherwise the chosen format.
    func form(sourceFormat: ImageFormat, options: ProcessingOptions, negotiation: FormatNegotiation) -> AnswerForm {
        if options.raw {
            return AnswerForm(
                contentType: sourceFormat.mimeType, fileExtension: sourceFormat.fileExtension, etagFormat: "raw", format: nil,
                varyAccept: false, passThrough: true)
        }
        let output = format.format(for: sourceFormat)
        if case let .best(request) = format {
            // The type is the chosen candidate's, known once rendered (``ImageService`` retypes
            // the answer); `best-format-allow-skips` passes SVG and `skip_processing` sources through.
            let skips = request.settings.allowSkips
                && (sourceFormat == .svg || OutputFormat(sourceFormat).map(options.skipProcessing.contains) == true)
            return AnswerForm(
                contentType: skips ? sourceFormat.mimeType : output.imageFormat.mimeType,
                fileExtension: skips ? sourceFormat.fileExtension : output.imageFormat.fileExtension, etagFormat: format.keyText,
                format: skips ? nil : output, varyAccept: format.varies(negotiating: negotiation.negotiates), passThrough: skips,
                retypedAfterRender: !skips)
        }
        return AnswerForm(
            contentType: output.imageFormat.mimeType, fileExtension: output.imageFormat.fileExtension, etagFormat: output.rawValue,
            format: output, varyAccept: format.varies(negotiating: negotiation.negotiates),
            passThrough: options.skipProcessing.contains(output) && OutputFormat(sourceFormat) == output)
    }

    func make(
        _ source: SourceImage, form: AnswerForm, options: ProcessingOptions, watermark: LoadedWatermark?, processor: ImageProcessor,
        metrics: ServiceMetrics, decodes: SharedCount
    ) throws(ImageServiceError) -> RenderedResult {
        var best: BestFormatRequest?
        if case let .best(request) = format { best = request }
        let rendered = try processor.render(
            source, options: options, as: form.format ?? format.format(for: source.format), best: best, watermark: watermark,
            metrics: metrics, decodes: decodes)
        metrics.recordRender()
        return rendered
    }
}
