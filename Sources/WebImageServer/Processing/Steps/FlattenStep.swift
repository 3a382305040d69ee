import WebImage

extension FrameStep {
    /// `background`: the frame composited over the opaque colour (``PixelBuffer/flattened(on:)``).
    static let flatten = FrameStep(name: "flatten") { pixels, _, context in
        guard let background = context.options.background else { return pixels }
        return pixels.flattened(on: RGBA(r: background.red, g: background.green, b: background.blue))
    }
}
