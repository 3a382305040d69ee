import WebImage

extension FrameStep {
    /// `sharpen`: an unsharp mask (``PixelBuffer/sharpened(sigma:)``).
    static let sharpen = FrameStep(name: "sharpen") { pixels, _, context in
        guard context.options.sharpen > 0 else { return pixels }
        return pixels.sharpened(sigma: context.options.sharpen)
    }
}
