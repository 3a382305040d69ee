import Foundation
import WebImage

/// What the service line makes from a source: a rendered image (``ImageOutput``) or `/info`
/// JSON (``InfoOutput``). The line is the same for both (``ParsedRequest`` parses,
/// `ImageService+RequestLine.swift` admits, looks up the result store, fetches, answers 304,
/// makes the result once and remembers it); an output says only what differs: the option
/// segments of its own, the form of its answer and the work on the processing pool.
protocol ServiceOutput: Sendable {
    /// What the output reads from the option segments only it understands.
    associatedtype Settings: Sendable

    /// The path prefix of its requests (`/info`); empty for images.
    static var pathPrefix: String { get }

    /// Whether a source that cannot be had is answered with the configured fallback image.
    static var answersWithFallback: Bool { get }

    /// Takes the option segments only this output understands out of `segments`; the
    /// processing options are parsed from the rest.
    /// - Throws: ``ImageServiceError/badOption(option:reason:)`` for a malformed one.
    static func settings(from segments: inout [String]) throws(ImageServiceError) -> Settings

    /// The output of a request whose checks all passed: `options` parsed from `path` for a
    /// client that sent `accept`.
    init(settings: Settings, options: ProcessingOptions, path: ImageRequestPath, accept: String?, negotiation: FormatNegotiation)

    /// The `Accept` bucket the answer belongs to (``FormatVariant/any`` when it does not depend
    /// on `Accept`): the hit path's index key beside the request path.
    var variant: FormatVariant { get }

    /// Whether the request draws the service's watermark image.
    func drawsWatermark(_ options: ProcessingOptions) -> Bool

    /// What stands for the output in the result-store key (with the identity of the watermark
    /// it draws, if any); `nil` when its answers are never stored.
    func storeChoice(_ options: ProcessingOptions, watermark: String?) -> String?

    /// The form of a stored answer of media type `contentType`; `nil` when the entry is not
    /// of this output's kind.
    func storedForm(contentType: String, negotiation: FormatNegotiation) -> AnswerForm?

    /// The form of the answer to make from a source of `sourceFormat`.
    func form(sourceFormat: ImageFormat, options: ProcessingOptions, negotiation: FormatNegotiation) -> AnswerForm

    /// Makes the answer's body from `source`: the work the processing pool runs, once per
    /// result, with the stage timings in `metrics` and the decode counted in `decodes`.
    func make(
        _ source: SourceImage, form: AnswerForm, options: ProcessingOptions, watermark: LoadedWatermark?, processor: ImageProcessor,
        metrics: ServiceMetrics, decodes: SharedCount
    ) throws(ImageServiceError) -> RenderedResult
}

extension ServiceOutput where Settings == Void {
    static func settings(from segments: inout [String]) throws(ImageServiceError) {}
}

/// How an answer is typed and tagged: its media type, file extension (`Content-Disposition`),
/// what stands for its format in the ETag, whether `Accept` chose it, and whether it is the
/// source's bytes as they are.
struct AnswerForm: Sendable {
    var contentType: String
    var fileExtension: String
    /// The format's text in the ETag (``ResponseHeaders/etag(identity:options:format:)``).
    var etagFormat: String
    /// The image format made; `nil` for JSON.
    var format: OutputFormat?
    /// Whether the answer depends on `Accept` (`Vary: Accept`).
    var varyAccept: Bool
    /// Whether the answer is the source's bytes, unprocessed (`raw`, `skip_processing`).
    var passThrough = false
    /// Whether the rendered result's own format types the answer (`best`).
    var retypedAfterRender = false
}
