import WebImage

extension FrameStep {
    /// `padding`: margins of the plan's padding (the option's sides scaled by the device-pixel
    /// ratio) around the frame, filled with `background`, else transparent
    /// (``PixelBuffer/extended(to:x:y:fill:)``).
    static let padding = FrameStep(name: "padding") { pixels, plan, context in
        guard let padding = plan.padding else { return pixels }
        let fill = context.options.backgroundFill
        let size = PixelSize(width: pixels.width + padding.left + padding.right, height: pixels.height + padding.top + padding.bottom)
        return pixels.extended(to: size, x: padding.left, y: padding.top, fill: fill)
    }
}
