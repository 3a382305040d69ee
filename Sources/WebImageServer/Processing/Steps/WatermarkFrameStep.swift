import WebImage

extension FrameStep {
    /// `watermark`, second half: the watermark `ProcessingStep/watermark` prepared,
    /// composited over the frame (``WatermarkTransformer``: at its position with its offsets,
    /// or tiled for `re`), last of all the frame steps, on every frame of an animation.
    static let watermark = FrameStep(name: "watermark") { pixels, _, context in
        guard let mark = context.preparedWatermark else { return pixels }
        return mark.transform(Image(pixels: pixels), key: "")?.pixels ?? pixels
    }
}
