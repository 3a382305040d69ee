import WebImage

extension ProcessingStep {
    /// `disable_animation`: an animated image (after `page`, which picks one frame itself)
    /// keeps only its first frame, as a still. The decoder is already asked for one frame; this
    /// step holds for a chained pipeline's input too.
    static let disableAnimation = ProcessingStep(name: "disable-animation") { (context: inout ProcessingContext) throws(ImageServiceError) in
        guard context.options.disableAnimation, context.image.frames.count > 1 else { return }
        let first = context.image.frames[0]
        context.image = context.image.replacing(frames: [ImageFrame(pixels: first.pixels, duration: 0)])
    }
}
