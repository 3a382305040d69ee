import WebImage

/// One named step applied to each frame's pixels, after the geometry is planned (resample,
/// extend, background, blur, sharpen, pixelate). The frame steps run one frame at a time, all of them on
/// one frame before the next, so a request holds the result's frames and one frame's
/// temporaries (what ``ProcessingBudget`` counts).
struct FrameStep: Sendable {
    /// The step's name.
    let name: String
    /// The frame after the step; `plan` is the request's geometry.
    let run: @Sendable (PixelBuffer, _ plan: GeometryPlan, _ context: ProcessingContext) -> PixelBuffer

    /// The frame steps, in order.
    static let all: [FrameStep] = [.resample, .extend, .flatten, .blur, .sharpen, .pixelate]
}

extension ProcessingStep {
    /// Every frame through ``FrameStep/all``; the deadline is checked between the frame steps.
    /// With `background`, the result is marked opaque.
    static let frames = ProcessingStep(name: "frames") { (context: inout ProcessingContext) throws(ImageServiceError) in
        guard let plan = context.plan else { throw .unprocessable("transform failed") }
        let cancellation = WorkCancellation.current
        let current = context
        let mapped = current.image.mappingFrames { pixels -> PixelBuffer? in
            var frame = pixels
            for step in FrameStep.all {
                if cancellation?.isCancelled == true { return nil }
                frame = step.run(frame, plan, current)
            }
            return cancellation?.isCancelled == true ? nil : frame
        }
        if cancellation?.isCancelled == true { throw .timedOut }
        guard let result = mapped else { throw .unprocessable("transform failed") }
        context.image = context.options.background != nil ? result.replacing(frames: result.frames, hasAlpha: false) : result
    }
}
