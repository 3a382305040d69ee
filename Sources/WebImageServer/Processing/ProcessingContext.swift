import Foundation
import WebImage

/// What the processing steps of one request pass along (imgproxy's pipeline context): the image
/// so far, the request's options and limits, how the decoded source relates to the full size,
/// and the geometry plan once the `ProcessingStep/plan` step has made it.
struct ProcessingContext {
    /// The image so far.
    var image: Image
    /// The request's options.
    let options: ProcessingOptions
    /// How the decoded source relates to its full size; `nil` for a full-size decode.
    let reduction: ReducedSource?
    /// The limits the plan is checked against.
    let limits: ProcessingLimits
    /// Whether the decoder already drew exactly the request's pages (``DecodedSource/pageSelected``).
    let pageSelected: Bool
    /// Whether `pages` stacks its pages into one still (``DecodedSource/stacksPages``).
    let stacksPages: Bool
    /// An orientation the decoder did not apply (``DecodedSource/pendingOrientation``).
    let pendingOrientation: ImageOrientation
    /// The geometry, planned on the full size (set by `ProcessingStep/plan`).
    var plan: GeometryPlan?
    /// The one resampler the request's frames share, with the request's `resizing_algorithm`.
    let resampler: Resampler
    /// The service's `unsharp-masking-*` settings, under the request's `unsharp_masking`.
    var serviceUnsharpMasking = UnsharpMasking.serviceDefault
    /// The service's watermark image, when one is configured and the request asks for it.
    let watermark: LoadedWatermark?
    /// The watermark sized and placed for the result (set by `ProcessingStep/watermark`).
    var preparedWatermark: WatermarkTransformer?
    /// The encode the request asks for, when the pipeline ends in one (`ProcessingStep/autoquality`).
    var output: OutputEncoding?
    /// The encoded result, once `ProcessingStep/autoquality` has made it.
    var encoded: Data?
    /// The format of ``encoded`` when it differs from the request's (`best`).
    var encodedFormat: OutputFormat?
    /// How many encodes made ``encoded``.
    var encodes = 0
    /// Whether a quality search ran.
    var searched = false

    init(source: DecodedSource, options: ProcessingOptions, limits: ProcessingLimits, watermark: LoadedWatermark? = nil) {
        image = source.image
        reduction = source.reduction
        pageSelected = source.pageSelected
        stacksPages = source.stacksPages
        pendingOrientation = source.pendingOrientation
        self.options = options
        self.limits = limits
        resampler = Resampler(filter: options.resizingAlgorithm.filter)
        self.watermark = options.drawsWatermark ? watermark : nil
    }
}
