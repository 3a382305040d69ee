import WebImage

extension FrameStep {
    /// `extend`: the frame on the planned canvas, the rest `background` (transparent without
    /// it; ``PixelBuffer/extended(to:x:y:fill:)``).
    static let extend = FrameStep(name: "extend") { pixels, plan, context in
        guard let canvas = plan.canvas else { return pixels }
        let fill = context.options.background.map { RGBA(r: $0.red, g: $0.green, b: $0.blue) } ?? RGBA(r: 0, g: 0, b: 0, a: 0)
        return pixels.extended(to: canvas.size, x: canvas.origin.x, y: canvas.origin.y, fill: fill)
    }
}
