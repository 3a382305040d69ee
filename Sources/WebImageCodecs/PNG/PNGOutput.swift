import WebImageCore

/// What the decode options do to decoded pixels: orientation, then the thumbnail/scale-down size.
/// PNG cannot shrink while decoding, so the full image is decoded (and limit-checked) first.
struct PNGOutput {
    let orientation: ImageOrientation
    let options: DecodeOptions
    let fullSize: PixelSize

    init(layout: PNGLayout, options: DecodeOptions) {
        self.orientation = layout.orientation
        self.options = options
        self.fullSize = layout.header.size
    }

    /// The orientation applied to the pixels (`.up` when the options leave them as stored).
    private var applied: ImageOrientation { options.applyOrientation ? orientation : .up }

    /// The orientation the resulting ``/WebImageCore/Image`` reports.
    var reportedOrientation: ImageOrientation { options.applyOrientation ? .up : orientation }

    /// The size of every output frame.
    var size: PixelSize {
        let shown = applied.swapsDimensions ? PixelSize(width: fullSize.height, height: fullSize.width) : fullSize
        return options.targetSize(for: shown)
    }

    /// Applies orientation and target size to one decoded canvas.
    func finish(_ pixels: PixelBuffer) -> PixelBuffer {
        let upright = pixels.applying(applied)
        let target = size
        if target.width == upright.width && target.height == upright.height { return upright }
        return upright.thumbnail(to: target)
    }
}
