import WebImage

extension ProcessingStep {
    /// `max_result_dimension`: a result wider or higher than the request's limit is scaled down
    /// to fit within it, keeping its aspect ratio (imgproxy's behaviour for this limit; the
    /// service's own `max-result-dimension` refuses instead, before decoding). Last of all the
    /// steps, so padding and extension count.
    static let resultDimension = ProcessingStep(name: "result-dimension") { (context: inout ProcessingContext) throws(ImageServiceError) in
        guard let limit = context.options.limits.resultDimension else { return }
        let size = context.image.pixelSize
        guard size.width > limit || size.height > limit else { return }
        let scale = Double(limit) / Double(max(size.width, size.height))
        let target = PixelSize(
            width: min(limit, max(1, Int((Double(size.width) * scale).rounded()))),
            height: min(limit, max(1, Int((Double(size.height) * scale).rounded()))))
        let resampler = context.resampler
        let source = context.image
        guard let scaled = source.mappingFrames({ resampler.resample($0, to: target) }) else {
            throw .unprocessable("scaling to max_result_dimension failed")
        }
        context.image = scaled.carryingGainMap(from: source) { $0.resampled(base: size, to: target, resampler: resampler) }
    }
}
