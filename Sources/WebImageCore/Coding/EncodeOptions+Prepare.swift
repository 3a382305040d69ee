extension EncodeOptions {
    /// The image an encoder writes for `image`, the same for every format: turned upright
    /// (files are written without an orientation tag), only its first frame unless
    /// ``keepAnimation``, and fitted within ``maxPixelSize`` (aspect ratio kept, never
    /// enlarged). The gain map follows the same steps. Returns `image` itself when there is
    /// nothing to change.
    ///
    /// A 16-bit image (``PixelFormat/rgba16``) is converted to RGBA8 at the end
    /// (``PixelBuffer/convertedToRGBA8()``: nearest value) unless `keepingHighBitDepth`, which
    /// encoders that write more than 8 bits pass.
    public func preparedImage(_ image: Image, keepingHighBitDepth: Bool = false) -> Image {
        let prepared = preparedGeometry(image)
        return keepingHighBitDepth ? prepared : prepared.convertedToRGBA8()
    }

    private func preparedGeometry(_ image: Image) -> Image {
        var frames = image.frames
        var changed = false
        var gainMap = image.gainMap
        if !keepAnimation && frames.count > 1 {
            frames = [frames[0]]
            changed = true
        }
        if image.orientation != .up {
            frames = frames.map { ImageFrame(pixels: $0.pixels.applying(image.orientation), duration: $0.duration) }
            gainMap = gainMap?.applying(image.orientation)
            changed = true
        }
        if let box = maxPixelSize, let first = frames.first {
            let size = PixelSize(width: first.pixels.width, height: first.pixels.height)
            let target = ThumbnailSizing.fit(size, within: box, preserveAspectRatio: true)
            if target != size {
                frames = frames.map { ImageFrame(pixels: $0.pixels.downscaled(to: target), duration: $0.duration) }
                gainMap = gainMap?.resampled(base: size, to: target)
                changed = true
            }
        }
        return changed ? image.replacing(frames: frames, orientation: .up).replacing(gainMap: gainMap) : image
    }
}
