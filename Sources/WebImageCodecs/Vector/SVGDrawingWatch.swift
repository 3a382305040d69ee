import CPoppler
import CRSVG
import WebImageCore

/// The second layer of ``SVGRenderBudget``: a cairo observer surface over the page that looks
/// at the deadline after every drawing operation (fill, stroke, paint, mask, glyphs). Past it,
/// the drawing context is put into an error state (`cairo_set_source(NULL)`: cairo records a
/// null-pointer error and changes nothing else), so every later cairo call on it fails and
/// librsvg returns at its next operation. The callbacks run on the drawing thread, inside
/// cairo calls on this context. Not thread-safe: one drawing at a time.
final class SVGDrawingWatch {
    private let observer: OpaquePointer?
    /// The drawing context librsvg draws on (nil when cairo could not make one).
    let context: OpaquePointer?
    private let deadline: SVGDrawingDeadline
    /// Whether the deadline stopped the drawing.
    private(set) var stopped = false

    init(page: OpaquePointer?, deadline: SVGDrawingDeadline) {
        self.deadline = deadline
        let observer = cairo_surface_create_observer(page, CAIRO_SURFACE_OBSERVER_NORMAL)
        self.observer = observer
        guard cairo_surface_status(observer) == CAIRO_STATUS_SUCCESS else {
            context = nil
            return
        }
        let context = cairo_create(observer)
        self.context = cairo_status(context) == CAIRO_STATUS_SUCCESS ? context : nil
        if self.context == nil { cairo_destroy(context) }
    }

    deinit {
        if let context { cairo_destroy(context) }
        cairo_surface_destroy(observer)
    }

    /// Runs `draw` with the callbacks attached (they hold this watch unretained; it stays
    /// alive for the call).
    func whileWatching<T>(_ draw: () -> T) -> T {
        let me = Unmanaged.passUnretained(self).toOpaque()
        let check: cairo_surface_observer_callback_t = { _, _, data in
            guard let data else { return }
            Unmanaged<SVGDrawingWatch>.fromOpaque(data).takeUnretainedValue().afterOperation()
        }
        cairo_surface_observer_add_fill_callback(observer, check, me)
        cairo_surface_observer_add_stroke_callback(observer, check, me)
        cairo_surface_observer_add_paint_callback(observer, check, me)
        cairo_surface_observer_add_mask_callback(observer, check, me)
        cairo_surface_observer_add_glyphs_callback(observer, check, me)
        return withExtendedLifetime(self) { draw() }
    }

    private func afterOperation() {
        guard !stopped, deadline.isPast, let context else { return }
        stopped = true
        cairo_set_source(context, nil)
    }
}
