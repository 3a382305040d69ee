import WebImage

extension ProcessingStep {
    /// Plans the geometry (``GeometryPlan``) on the full size — a reduced source's full size —
    /// with smart gravity read from the pixels (``PixelBuffer/detailCenter(in:)``), and checks
    /// the result against the limits (``ProcessingBudget``) before any result canvas exists.
    static let plan = ProcessingStep(name: "plan") { (context: inout ProcessingContext) throws(ImageServiceError) in
        let image = context.image
        let plan = GeometryPlan(source: context.reduction?.fullSize ?? image.pixelSize, options: context.options) { area in
            image.pixels.detailCenter(in: area)
        }
        try ProcessingBudget(limits: context.limits).check(output: plan.outputSize, frames: image.frames.count, options: context.options)
        context.plan = plan
    }
}
