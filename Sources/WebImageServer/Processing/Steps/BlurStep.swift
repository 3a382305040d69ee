import WebImage

extension FrameStep {
    /// `blur`: the exact Gaussian blur, σ capped at 50 (``PixelBuffer/blurredExactly(sigma:)``).
    static let blur = FrameStep(name: "blur") { pixels, _, context in
        guard context.options.blur > 0 else { return pixels }
        return pixels.blurredExactly(sigma: min(context.options.blur, 50))
    }
}
