import WebImage

extension ProcessingStep {
    /// `watermark`, first half: sizes the configured watermark once for the planned result
    /// (``GeometryPlan/outputSize``, padding included) and fixes its opacity (the option's
    /// times the service's base opacity) and its offsets — pixel offsets multiplied by the
    /// device-pixel ratio used and rounded half to even, as imgproxy does; fractions stay
    /// fractions of the result. Every frame then gets it (``FrameStep/watermark``). Nothing
    /// without a configured watermark or the option. A watermark scaled past the result limits
    /// (its pixels, or the working memory with it) is refused as a bad `watermark` option.
    static let watermark = ProcessingStep(name: "watermark") { (context: inout ProcessingContext) throws(ImageServiceError) in
        guard let options = context.options.watermark, let loaded = context.watermark, let plan = context.plan else { return }
        func offset(_ value: Double) -> Double {
            abs(value) < 1 ? value : (value * plan.dprScale).rounded(.toNearestOrEven)
        }
        let opacity = options.opacity * loaded.baseOpacity
        let sized = WatermarkTransformer(
            watermark: loaded.image, opacity: opacity, position: options.position,
            xOffset: offset(options.xOffset), yOffset: offset(options.yOffset), scale: options.scale)
        let size = sized.markSize(on: plan.outputSize)
        let markPixels = Double(size.width) * Double(size.height)
        guard markPixels <= Double(context.limits.maxResultPixels) else {
            throw .badOption(option: "watermark", reason: "the watermark at scale \(options.scale) would be \(size), over the result limit")
        }
        // The sized watermark and the resample's output beside the result's working memory.
        let working = ProcessingBudget.workingBytes(output: plan.outputSize, frames: context.image.frames.count, options: context.options)
        guard working + markPixels * 8 <= Double(context.limits.maxProcessingBytes) else {
            throw .badOption(
                option: "watermark",
                reason: "the watermark at scale \(options.scale) (\(size)) with the result needs more than "
                    + "\(context.limits.maxProcessingBytes / 1_048_576) MiB to process (max-processing-memory)")
        }
        var mark = loaded.image
        if size != loaded.image.pixelSize {
            let pixels = Resampler(filter: .lanczos3).resample(loaded.image.pixels, to: size)
            mark = Image(pixels: pixels, hasAlpha: loaded.image.hasAlpha)
        }
        // Already at its size on the result: scale 0 keeps it, and the placement is the same.
        context.preparedWatermark = WatermarkTransformer(
            watermark: mark, opacity: opacity, position: options.position,
            xOffset: sized.xOffset, yOffset: sized.yOffset, scale: 0)
    }
}
