import WebImage

extension FrameStep {
    /// `extend`: the frame on the planned canvas, the rest `background` (transparent without
    /// it; ``PixelBuffer/extended(to:x:y:fill:)``).
    static let extend = FrameStep(name: "extend") { pixels, plan, context in
        guard let canvas = plan.canvas else { return pixels }
        let fill = context.options.backgroundFill
        return pixels.extended(to: canvas.size, x: canvas.origin.x, y: canvas.origin.y, fill: fill)
    }
}
