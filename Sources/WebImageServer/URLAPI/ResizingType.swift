import WebImage

/// How the source is resized to the requested size (imgproxy's `resizing_type`).
public enum ResizingType: String, Sendable, Hashable, CaseIterable {
    /// Keep the aspect ratio and fit inside the size.
    case fit
    /// Keep the aspect ratio, cover the size and crop what projects (by gravity).
    case fill
    /// Like `fill`, but never enlarges: a result smaller than the size is cropped to the
    /// requested aspect ratio instead.
    case fillDown = "fill-down"
    /// Stretch to exactly the size.
    case force
    /// `fill` when source and requested size have the same orientation, else `fit`.
    case auto
}
