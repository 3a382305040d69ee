import WebImage

extension ProcessingStep {
    /// `trim`: crops a still, full-size image to the box of pixels that differ from the border
    /// colour (``PixelBuffer/trimBox(threshold:background:equalHorizontal:equalVertical:)``).
    /// A reduced decode never trims (shrink on load is off for `trim`), nor does an animation.
    static let trim = ProcessingStep(name: "trim") { (context: inout ProcessingContext) throws(ImageServiceError) in
        guard let trim = context.options.trim, context.reduction == nil, !context.image.isAnimated else { return }
        let color = trim.color.map { RGBA(r: $0.red, g: $0.green, b: $0.blue) }
        guard let box = context.image.pixels.trimBox(
            threshold: trim.threshold, background: color, equalHorizontal: trim.equalHorizontal, equalVertical: trim.equalVertical),
            let trimmed = context.image.mappingFrames({ $0.cropped(to: box) })
        else { return }
        let source = context.image
        context.image = trimmed.carryingGainMap(from: source) { $0.cropped(base: source.pixelSize, to: box) }
    }
}
