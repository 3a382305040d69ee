import WebImage

extension ProcessingStep {
    /// `page`: keeps only the requested page of a multi-page source (TIFF, whose pages are
    /// frames) or frame of an animated one, as a still image. A PDF page is drawn by the decoder
    /// itself (``ProcessingContext/pageSelected``). A page past the last one is refused with
    /// ``ImageServiceError/unprocessable(_:)`` naming the source's page count.
    static let page = ProcessingStep(name: "page") { (context: inout ProcessingContext) throws(ImageServiceError) in
        guard let page = context.options.page, !context.pageSelected else { return }
        let frames = context.image.frames
        guard page < frames.count else {
            throw .unprocessable("page \(page) is past the last page: the source has \(frames.count) (pages count from 0)")
        }
        guard frames.count > 1 else { return }
        let frame = frames[page]
        context.image = context.image.replacing(frames: [ImageFrame(pixels: frame.pixels, duration: 0)])
    }
}
