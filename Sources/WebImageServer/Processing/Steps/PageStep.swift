import WebImage

extension ProcessingStep {
    /// `page` and `pages`: keeps `pages` pages (default 1) from the 0-based `page` (default 0)
    /// of a multi-page source (TIFF, whose pages are frames) or frames of an animated one. One
    /// page becomes a still image. Several stay an animation when the result keeps animation
    /// (``ProcessingContext/stacksPages`` is false), and are otherwise stacked top to bottom,
    /// left-aligned, on a transparent canvas as wide as the widest (``PageStack``). PDF pages
    /// are drawn by the decoder itself, which leaves exactly the pages asked for
    /// (``ProcessingContext/pageSelected``: the frames then start at `page`). A `page` past the
    /// last one is refused with ``ImageServiceError/unprocessable(_:)`` naming the source's
    /// page count; `pages` past the last page takes the pages there are.
    static let page = ProcessingStep(name: "page") { (context: inout ProcessingContext) throws(ImageServiceError) in
        let count = context.options.pages ?? 1
        guard context.options.page != nil || count > 1 else { return }
        let first = context.pageSelected ? 0 : context.options.page ?? 0
        let frames = context.image.frames
        guard first < frames.count else {
            throw .unprocessable("page \(first) is past the last page: the source has \(frames.count) (pages count from 0)")
        }
        let chosen = Array(frames[first..<min(frames.count, first + count)])
        // Every frame, kept as it is: nothing to pick.
        if chosen.count == frames.count, frames.count == 1 || !context.stacksPages { return }
        if chosen.count == 1 {
            context.image = context.image.replacing(frames: [ImageFrame(pixels: chosen[0].pixels, duration: 0)])
        } else if context.stacksPages {
            let stacked = try PageStack(pages: chosen.map(\.pixels), maxPixels: context.limits.maxSourcePixels).render()
            // Pages narrower than the widest leave transparent canvas: the result has alpha then.
            let ragged = Set(chosen.map(\.pixels.width)).count > 1
            context.image = context.image.replacing(
                frames: [ImageFrame(pixels: stacked, duration: 0)], hasAlpha: context.image.hasAlpha || ragged)
        } else {
            context.image = context.image.replacing(frames: chosen)
        }
    }
}
