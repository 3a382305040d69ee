import WebImage

extension FrameStep {
    /// `pixelate`: blocks of the option's side in result pixels, each the premultiplied average
    /// of the pixels it covers, starting at the top-left corner (``PixelateTransformer``).
    static let pixelate = FrameStep(name: "pixelate") { pixels, _, context in
        guard context.options.pixelate > 1 else { return pixels }
        let frame = Image(pixels: pixels)
        return PixelateTransformer(blockSize: context.options.pixelate).transform(frame, key: "")?.pixels ?? pixels
    }
}
