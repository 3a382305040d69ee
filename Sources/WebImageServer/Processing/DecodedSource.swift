import WebImage

/// A decoded source: full size, or reduced while decoding (``ShrinkOnLoad``).
struct DecodedSource: Sendable {
    var image: Image
    /// How `image` relates to the full size, `nil` when it is the full size.
    var reduction: ReducedSource?
    /// Whether the decoder already drew exactly the request's pages (a PDF's), so the
    /// `ProcessingStep/page` step takes the frames from the first.
    var pageSelected = false
    /// Whether the request's `pages` are stacked into one still image (the result does not keep
    /// animation) rather than kept as frames.
    var stacksPages = false
    /// An orientation still to apply to `image`: the main image's EXIF orientation when `image`
    /// is its embedded thumbnail (`ProcessingStep/thumbnailOrientation`).
    var pendingOrientation: ImageOrientation = .up
}
