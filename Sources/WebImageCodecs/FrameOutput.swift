import WebImageCore

/// What the decode options do to frames a codec decodes at their stored size (AVIF, JPEG XL;
/// HEIF, BMP and ICO for the size only):
/// the file's orientation first, then the thumbnail size, chosen for the image as shown.
struct FrameOutput {
    /// The orientation applied to the pixels (`.up` when the options keep them as stored).
    let applied: ImageOrientation
    /// The orientation the image reports.
    let reportedOrientation: ImageOrientation
    /// The size of every output frame.
    let size: PixelSize

    init(stored: PixelSize, orientation: ImageOrientation, options: DecodeOptions) {
        applied = options.applyOrientation ? orientation : .up
        reportedOrientation = options.applyOrientation ? .up : orientation
        let shown = applied.swapsDimensions ? PixelSize(width: stored.height, height: stored.width) : stored
        size = options.targetSize(for: shown)
    }

    /// For `pixels` that are already upright (the codec turned them, or the format has no
    /// orientation): only the thumbnail size applies.
    init(unturned pixels: PixelBuffer, options: DecodeOptions) {
        self.init(stored: PixelSize(width: pixels.width, height: pixels.height), orientation: .up, options: options)
    }

    /// Turns and resizes one decoded frame.
    func finish(_ pixels: PixelBuffer) -> PixelBuffer {
        let upright = pixels.applying(applied)
        return upright.width == size.width && upright.height == size.height ? upright : upright.thumbnail(to: size)
    }
}
