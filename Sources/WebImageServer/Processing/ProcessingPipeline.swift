import WebImage

/// The service's processing, decoded source to result, as a list of named steps run in order
/// (imgproxy's `Pipeline`): the deadline (``WorkCancellation``) is checked before every step,
/// and a cancelled request stops there with ``ImageServiceError/timedOut``; the steps' own
/// loops stop within a row.
struct ProcessingPipeline: Sendable {
    /// The steps, first to last.
    let steps: [ProcessingStep]

    /// The service's steps: the embedded thumbnail's orientation, page (one page or frame),
    /// rotate, flip, trim, plan (geometry and result limits), the watermark sized for the
    /// result, the frame steps on every frame (``ProcessingStep/frames``), then the encode's
    /// quality search when the request has an output (``ProcessingStep/autoquality``).
    static let service = ProcessingPipeline(
        steps: [.thumbnailOrientation, .page, .rotate, .flip, .trim, .plan, .watermark, .frames, .autoquality])

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
