import WebImage

extension FrameStep {
    /// `background`: the frame composited over the opaque colour (``PixelBuffer/flattened(on:)``), or
    /// over the colour at `background_alpha` (``PixelBuffer/flattened(on:alpha:)``).
    static let flatten = FrameStep(name: "flatten") { pixels, _, context in
        guard let background = context.options.background else { return pixels }
        if context.options.backgroundAlpha < 1 { return pixels.flattened(on: background, alpha: context.options.backgroundAlpha) }
        return pixels.flattened(on: RGBA(r: background.red, g: background.green, b: background.blue))
    }
}
