import CPoppler
import CRSVG
import Foundation
import WebImageCore

/// The SVG decoder over librsvg: the document drawn with cairo at its intrinsic size, or
/// straight at the requested ``/WebImageCore/DecodeOptions/thumbnailPixelSize`` (larger or
/// smaller: a vector source is drawn, not resampled, so edges stay sharp).
///
/// - Size: the `width`/`height` of the root element (units converted at 96 DPI), else its
///   `viewBox`. A thumbnail size keeps the aspect ratio unless
///   ``/WebImageCore/DecodeOptions/preserveAspectRatio`` is off (then the drawing is stretched).
/// - Safety: the document is parsed from memory with no base URL, so librsvg refuses every
///   reference that needs one — `file:` and `http(s):` images, `xi:include`, external CSS and
///   fonts: nothing is read from disk or the network. `data:` URLs are not decoded either
///   (`SVGDataURLFilter`: they would reach gdk-pixbuf's image loaders); the rest of the
///   document is drawn without them. librsvg's own limits stay on (no `RSVG_HANDLE_FLAG_UNLIMITED`:
///   element counts, XML nesting and entity expansion are bounded), the document is at most
///   ``maxDocumentBytes``, and the drawing size is checked against the decode limits before
///   pixel memory is allocated (SPEC C-6).
/// - Time: every decode keeps to ``budget`` (``SVGRenderBudget``): elements and filter
///   primitives counted before parsing, the clock checked after every drawing operation, and
///   the caller's wait bounded by ``SVGRenderBudget/maxDuration`` — a document that takes
///   longer ends with `timedOut(.render(seconds:))`.
/// - Pixels are RGBA with straight alpha; transparent where nothing is drawn.
/// - SVG is not encoded.
///
/// The coder holds only its budget; every call parses the document again.
public struct SVGCoder: ImageCoder {
    /// The largest SVG document decoded (16 MiB); a larger one is `imageTooLarge`.
    public static let maxDocumentBytes = 16 * 1024 * 1024

    /// What one decode may cost (time, elements, filter primitives).
    public let budget: SVGRenderBudget

    /// An SVG coder keeping to `budget`.
    public init(budget: SVGRenderBudget = .default) {
        self.budget = budget
    }

    /// Whether `data` looks like an SVG document (sniffed from its first kilobyte).
    public func canDecode(_ data: Data) -> Bool {
        ImageFormat.detect(data) == .svg
    }

    /// Draws the document at its intrinsic size or the requested size, within ``budget``.
    /// - Throws: ``/WebImageCore/WebImageError`` — `badImageData` for a document librsvg cannot
    ///   parse or one without a size, `imageTooLarge` over a limit or a counted budget,
    ///   `timedOut(.render(seconds:))` past the budget's time.
    public func decode(_ data: Data, options: DecodeOptions) throws -> Image {
        let budget = self.budget
        let pixels = try SVGBudgetedRun.run(budget: budget) { deadline in
            let document = try SVGDocument(data, budget: budget)
            let size = CairoPixels.renderSize(intrinsic: document.size, options: options)
            try options.limits.check(canvas: size)
            return try document.render(size: size, deadline: deadline)
        }
        return Image(pixels: pixels, scale: options.imageScale, format: .svg, hasAlpha: true)
    }

    /// Reads the intrinsic size (rounded up to whole pixels) without drawing, within ``budget``.
    /// - Throws: `badImageData` for a document librsvg cannot parse or one without a size,
    ///   `imageTooLarge` or `timedOut` over the budget.
    public func readMetadata(_ data: Data) throws -> ImageMetadata {
        let budget = self.budget
        let size = try SVGBudgetedRun.run(budget: budget) { _ in
            CairoPixels.renderSize(intrinsic: try SVGDocument(data, budget: budget).size, options: .default)
        }
        return ImageMetadata(format: .svg, pixelSize: size, hasAlpha: true)
    }
}

/// A parsed SVG document (one librsvg handle). Not thread-safe: one owner at a time.
final class SVGDocument {
    private let handle: UnsafeMutablePointer<RsvgHandle>
    /// The intrinsic size in pixels (not rounded).
    let size: (width: Double, height: Double)

    init(_ data: Data, budget: SVGRenderBudget) throws {
        guard !data.isEmpty else { throw WebImageError.badImageData(reason: "empty SVG data") }
        guard data.count <= SVGCoder.maxDocumentBytes else {
            throw WebImageError.imageTooLarge(reason: "SVG document of \(data.count) bytes; the limit is \(SVGCoder.maxDocumentBytes)")
        }
        let document = try SVGDataURLFilter.filter([UInt8](data))
        try SVGComplexityScan.check(document, budget: budget)
        var error: UnsafeMutablePointer<GError>?
        // From memory, no base file, default flags: external references are refused.
        let created = document.withUnsafeBufferPointer { raw in
            rsvg_handle_new_from_data(raw.baseAddress, gsize(raw.count), &error)
        }
        guard let created else {
            throw WebImageError.badImageData(reason: "SVG: \(GLibError.take(error) ?? "unreadable document")")
        }
        GLibError.take(error)
        handle = created
        rsvg_handle_set_dpi(handle, 96)
        var width = 0.0
        var height = 0.0
        if rsvg_handle_get_intrinsic_size_in_pixels(handle, &width, &height) == 0 {
            var hasWidth: gboolean = 0
            var hasHeight: gboolean = 0
            var hasViewBox: gboolean = 0
            var lengthW = RsvgLength()
            var lengthH = RsvgLength()
            var viewBox = RsvgRectangle()
            rsvg_handle_get_intrinsic_dimensions(
                handle, &hasWidth, &lengthW, &hasHeight, &lengthH, &hasViewBox, &viewBox)
            if hasViewBox != 0 {
                width = viewBox.width
                height = viewBox.height
            }
        }
        guard width.isFinite, height.isFinite, width > 0, height > 0 else {
            g_object_unref(handle)
            throw WebImageError.badImageData(reason: "SVG: no usable width/height or viewBox (\(width)x\(height))")
        }
        size = (width, height)
    }

    deinit {
        g_object_unref(handle)
    }

    /// Draws the whole document scaled to exactly `pixels` (checked against the limits),
    /// stopping at the first drawing operation after `deadline`.
    /// - Throws: `imageTooLarge` when cairo cannot make a surface that large, `badImageData`
    ///   when librsvg fails to draw, `timedOut(.render(seconds:))` past the deadline (the
    ///   caller's budget supplies the seconds).
    func render(size pixels: PixelSize, deadline: SVGDrawingDeadline) throws -> PixelBuffer {
        try PixelBuffer.make(width: pixels.width, height: pixels.height) { out in
            out.initialize(repeating: 0)
            let surface = cairo_image_surface_create_for_data(
                out.baseAddress, CAIRO_FORMAT_ARGB32, Int32(pixels.width), Int32(pixels.height), Int32(pixels.width * 4))
            defer { cairo_surface_destroy(surface) }
            guard cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS else {
                throw WebImageError.imageTooLarge(reason: "cairo cannot draw \(pixels) pixels")
            }
            if deadline.isPast { throw deadline.timedOut }
            let watch = SVGDrawingWatch(page: surface, deadline: deadline)
            guard let context = watch.context else {
                throw WebImageError.imageTooLarge(reason: "cairo cannot draw \(pixels) pixels")
            }
            cairo_scale(context, Double(pixels.width) / size.width, Double(pixels.height) / size.height)
            var viewport = RsvgRectangle(x: 0, y: 0, width: size.width, height: size.height)
            var error: UnsafeMutablePointer<GError>?
            let drawn = watch.whileWatching { rsvg_handle_render_document(handle, context, &viewport, &error) }
            let message = GLibError.take(error)
            cairo_surface_flush(surface)
            if watch.stopped { throw deadline.timedOut }
            guard drawn != 0, cairo_status(context) == CAIRO_STATUS_SUCCESS else {
                throw WebImageError.badImageData(reason: "SVG: \(message ?? "the document could not be drawn")")
            }
            CairoPixels.convertToStraightRGBA(out)
        }
    }
}

/// Reading and freeing a `GError`.
enum GLibError {
    /// The error's message, freeing the error; `nil` when there is none.
    @discardableResult
    static func take(_ error: UnsafeMutablePointer<GError>?) -> String? {
        guard let error else { return nil }
        defer { g_error_free(error) }
        return error.pointee.message.map { String(cString: $0) }
    }
}
