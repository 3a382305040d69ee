extension PixelBuffer {
    /// The last step of every thumbnail (SPEC C-4, T-2): what remains after a codec's
    /// shrink-on-load, done the way libvips and Pillow do it.
    ///
    /// - A whole-number reduction in both directions (a PNG halved, a GIF at 1/8) is a box
    ///   average: exact for that case, and the fastest.
    /// - Otherwise the image is first box-reduced by the largest whole factor that keeps it at
    ///   least twice the target (cheap, and it leaves the filter little to do), then finished
    ///   with Lanczos3 (``resized(to:filter:)``), premultiplied so alpha edges stay clean.
    ///
    /// An RGBA16 buffer is resized with Lanczos3 directly (the box reduction is 8-bit only).
    ///
    /// Enlarging is not a thumbnail: a target larger than the buffer in either direction is
    /// resized with Lanczos3 directly.
    public func thumbnail(to size: PixelSize) -> PixelBuffer {
        let target = PixelSize(width: max(1, size.width), height: max(1, size.height))
        if target.width == width && target.height == height { return self }
        if format == .rgba16 { return resized(to: target) }
        guard target.width <= width, target.height <= height else { return resized(to: target) }
        if width % target.width == 0 && height % target.height == 0 && width / target.width == height / target.height {
            return downscaled(to: target)
        }
        let factor = min(width / target.width, height / target.height) / 2
        let reduced = factor >= 2 ? downscaled(to: PixelSize(width: width / factor, height: height / factor)) : self
        return reduced.resized(to: target, filter: .lanczos3)
    }
}
