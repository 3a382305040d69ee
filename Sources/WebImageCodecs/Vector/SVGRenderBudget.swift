import WebImageCore

/// What one SVG decode may cost. librsvg has no way to stop a drawing it has started, so the
/// budget is kept in three layers:
///
/// 1. **Counted before parsing** (deterministic, `imageTooLarge`): at most ``maxElements``
///    elements and ``maxFilterPrimitives`` filter primitives (`fe…` elements); entities whose
///    text holds markup are refused (they would multiply elements past the count). XML nesting
///    is bounded by libxml2 (256 levels), entity expansion and `<use>` references by librsvg's
///    own limits, which stay on.
/// 2. **Checked while drawing**: the document is drawn through a cairo observer surface that
///    looks at the clock after every drawing operation on the page (fill, stroke, paint, mask,
///    glyphs). Once ``maxDuration`` has passed, the drawing context is put into an error state
///    and librsvg stops at its next operation.
/// 3. **Wall clock for the caller**: parsing and drawing run on a thread of their own and the
///    decode waits at most ``maxDuration``; then it throws `timedOut(.render(seconds:))`.
///    Work the second layer cannot interrupt — one very long operation (a path of thousands of
///    self-crossing segments, one huge filter) or everything inside one group layer (opacity,
///    filter, mask), which reaches the page only when the layer is done — is abandoned: it
///    finishes in the background and its result is dropped. At most ``maxOverrunning`` such
///    abandoned drawings run at once in the process; while that many do, new SVG decodes fail
///    at once with the same error instead of adding more.
///
/// So the caller's wait is bounded; the CPU an abandoned drawing still uses is bounded only by
/// the first layer's counts and the ``maxOverrunning`` cap.
public struct SVGRenderBudget: Sendable, Hashable {
    /// Seconds of wall-clock time for parsing and drawing one document. Default 10.
    public var maxDuration: Double = 10
    /// The most elements (start tags) a document may have, counted before parsing. Default 100,000.
    public var maxElements: Int = 100_000
    /// The most filter primitives (`fe…` elements) a document may have. Default 256.
    public var maxFilterPrimitives: Int = 256
    /// The most drawings that overran ``maxDuration`` and still run in the background,
    /// process-wide, before new SVG decodes are refused. Default 2.
    public var maxOverrunning: Int = 2

    /// The default budget.
    public init() {}

    /// The default budget.
    public static let `default` = SVGRenderBudget()

    /// The error for a document that did not finish within ``maxDuration``.
    var timedOut: WebImageError { .timedOut(.render(seconds: maxDuration)) }
}
