import WebImage

/// The service's processing, decoded source to result, as a list of named steps run in order
/// (imgproxy's `Pipeline`): the deadline (``WorkCancellation``) is checked before every step,
/// and a cancelled request stops there with ``ImageServiceError/timedOut``; the steps' own
/// loops stop within a row.
struct ProcessingPipeline: Sendable {
    /// The steps, first to last.
    let steps: [ProcessingStep]

    /// The service's steps: the embedded thumbnail's orientation, page (`page` and `pages`),
    /// `disable_animation` (the first frame),
    /// rotate, flip, trim, plan (geometry and result limits), the watermark sized for the
    /// result, the frame steps on every frame (`ProcessingStep/frames`), the chained
    /// pipelines (`ProcessingStep/chained`), the request's `max_result_dimension`
    /// (`ProcessingStep/resultDimension`), then the encode's quality search when the request
    /// has an output (`ProcessingStep/autoquality`).
    static let service = ProcessingPipeline(
        steps: [
            .thumbnailOrientation, .page, .disableAnimation, .rotate, .flip, .trim, .plan, .watermark, .frames, .chained,
            .resultDimension, .autoquality,
        ])

    /// The steps of one chained pipeline (`/-/`): the pixel steps, on the previous pipeline's
    /// result.
    static let chainedPipeline = ProcessingPipeline(
        steps: [.thumbnailOrientation, .page, .disableAnimation, .rotate, .flip, .trim, .plan, .watermark, .frames])

    /// Runs every step on `context`; returns when the last step started (what a caller that
    /// times the encode apart from the processing wants, `timingLastStep`).
    @discardableResult
    func run(_ context: inout ProcessingContext, timingLastStep: Bool = false) throws(ImageServiceError) -> ContinuousClock.Instant {
        var lastStart = ContinuousClock.now
        for step in steps {
            if WorkCancellation.isCurrentCancelled { throw .timedOut }
            if timingLastStep { lastStart = ContinuousClock.now }
            try step.run(&context)
        }
        return lastStart
    }
}
