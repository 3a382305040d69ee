import WebImage

extension ProcessingStep {
    /// Chained pipelines (`/-/`): each of the request's later pipelines
    /// (``ProcessingOptions/chained``) run on the previous one's result as a full-size source
    /// (``ProcessingPipeline/chainedPipeline``), as a second request on that result would.
    static let chained = ProcessingStep(name: "chained") { (context: inout ProcessingContext) throws(ImageServiceError) in
        for next in context.options.chained {
            if WorkCancellation.isCurrentCancelled { throw .timedOut }
            var inner = ProcessingContext(
                source: DecodedSource(image: context.image, reduction: nil), options: next, limits: context.limits,
                watermark: context.watermark)
            inner.serviceUnsharpMasking = context.serviceUnsharpMasking
            try ProcessingPipeline.chainedPipeline.run(&inner)
            context.image = inner.image
        }
    }
}
