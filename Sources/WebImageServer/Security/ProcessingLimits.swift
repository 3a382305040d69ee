import WebImage

/// Limits checked from the source's header before decoding and again by the decoder (SPEC V-5).
public struct ProcessingLimits: Sendable, Hashable {
    /// Largest source resolution in pixels (imgproxy's default: 50 megapixels).
    public var maxSourcePixels = 50_000_000
    /// Most frames of an animated source (default 100).
    public var maxAnimationFrames = 100
    /// Most pixels of all frames of an animation together.
    public var maxTotalAnimationPixels = 500_000_000
    /// Largest resolution of one frame of an animated source, in pixels; 0 = no limit of its
    /// own (imgproxy's `MAX_ANIMATION_FRAME_RESOLUTION`, default 0).
    public var maxAnimationFramePixels = 0
    /// A request's `max_src_resolution` as imgproxy applies it to an animated source: the pixels
    /// of all its frames together, unless ``maxAnimationFramePixels`` limits each frame; `nil`
    /// when the request sets none (``lowered(by:)``).
    var maxSummedSourcePixels: Int?
    /// Largest source in bytes (default 64 MiB).
    public var maxSourceBytes = 64 * 1024 * 1024
    /// Largest result side in pixels.
    public var maxResultDimension = 16_384
    /// Largest result resolution in pixels, checked from the plan before the result is made
    /// (default 50 megapixels, as the source limit).
    public var maxResultPixels = 50_000_000
    /// Most bytes of result-sized canvases one request may hold while processing: the result's
    /// frames plus the largest step's temporaries (default 1 GiB; see the Security article).
    public var maxProcessingBytes = 1 << 30
    /// Largest encoded result in bytes; a bigger one is refused with 422 (default 64 MiB).
    public var maxResultBytes = 64 * 1024 * 1024
    /// What drawing one SVG source may cost: elements and filter primitives counted before
    /// parsing, and the drawing time (default 10 s; see `SVGRenderBudget`). Over the counts a
    /// source is refused with 413, over the time with 422. The drawn size is held to
    /// ``maxSourcePixels`` like any source's.
    public var svgBudget = SVGRenderBudget.default

    /// The defaults.
    public init() {}
}
