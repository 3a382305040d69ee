import WebImage

/// The `crop` option: an area cut before resizing.
public struct CropArea: Sendable, Hashable {
    /// Width and height: ≥ 1 pixels, < 1 a fraction of the source, 0 the full side.
    public var width, height: Double
    /// The crop's own gravity; `nil` uses the request's ``ProcessingOptions/gravity``.
    public var gravity: Gravity?
}
