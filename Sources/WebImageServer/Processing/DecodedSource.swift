import WebImage

/// A decoded source: full size, or reduced while decoding (``ShrinkOnLoad``).
struct DecodedSource: Sendable {
    var image: Image
    /// How `image` relates to the full size, `nil` when it is the full size.
    var reduction: ReducedSource?
}
