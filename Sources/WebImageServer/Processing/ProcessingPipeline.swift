import WebImage

/// The service's processing, decoded source to result, as a list of named steps run in order
/// (imgproxy's `Pipeline`): the deadline (``WorkCancellation``) is checked before every step,
/// and a cancelled request stops there with ``ImageServiceError/timedOut``; the steps' own
/// loops stop within a row.
struct ProcessingPipeline: Sendable {
    /// The steps, first to last.
    let steps: [ProcessingStep]

    /// The service's steps: the embedded thumbnail's orientation, page (one page or frame),
    /// `disable_animation` (the first frame),
    /// rotate, flip, trim, plan (geometry and result limits), the watermark sized for the
    /// result, then the frame steps on every frame (``ProcessingStep/frames``), and last the request's
    /// `max_result_dimension` (``ProcessingStep/resultDimension``).
    static let service = ProcessingPipeline(steps: [.thumbnailOrientation, .page, .disableAnimation, .rotate, .flip, .trim, .plan, .watermark, .frames, .resultDimension])

    /// Runs every step on `context`.
    func run(_ context: inout ProcessingContext) throws(ImageServiceError) {
        for step in steps {
            if WorkCancellation.isCurrentCancelled { throw .timedOut }
            try step.run(&context)
        }
    }
}
