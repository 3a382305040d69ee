import WebImage

/// One named step applied to each frame's pixels, after the geometry is planned, in imgproxy's
/// order (resample, blur, sharpen, unsharp masking, pixelate, the colour steps, extend, padding, background,
/// watermark). The frame
/// steps run one frame at a time, all of them on
/// one frame before the next, so a request holds the result's frames and one frame's
/// temporaries (what ``ProcessingBudget`` counts).
struct FrameStep: Sendable {
    /// The step's name.
    let name: String
    /// The frame after the step; `plan` is the request's geometry.
    let run: @Sendable (PixelBuffer, _ plan: GeometryPlan, _ context: ProcessingContext) -> PixelBuffer

    /// The frame steps, in order.
    static let all: [FrameStep] = [.resample, .blur, .sharpen, .unsharpMasking, .pixelate, .adjust, .monochrome, .duotone, .colorize, .gradient, .extend, .padding, .flatten, .watermark]
}

extension ProcessingStep {
    /// Every frame through ``FrameStep/all``; the deadline is checked between the frame steps.
    /// With `background`, the result is marked opaque; without it, a result extended or padded
    /// onto a transparent margin is marked as having alpha.
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
        guard var result = mapped else { throw .unprocessable("transform failed") }
        if let map = current.image.gainMap {
            result = result.replacing(gainMap: GainMapGeometry.carry(
                map, source: current.image.pixelSize, plan: plan, reduction: current.reduction, resampler: current.resampler))
        }
        if context.options.background != nil, context.options.backgroundAlpha >= 1 {
            context.image = result.replacing(frames: result.frames, hasAlpha: false)
        } else if !result.hasAlpha, plan.canvas != nil || plan.padding != nil || context.options.background != nil {
            context.image = result.replacing(frames: result.frames, hasAlpha: true)
        } else {
            context.image = result
        }
    }
}
