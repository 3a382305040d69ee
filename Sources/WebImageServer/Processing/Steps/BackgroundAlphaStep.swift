import WebImage

extension ProcessingOptions {
    /// The fill of `extend` and `padding`: the opaque `background`; transparent without it, or
    /// when `background_alpha` is below 1 (the flatten step then lays the background at that
    /// opacity under every pixel, the margins included).
    var backgroundFill: RGBA {
        guard let background, backgroundAlpha >= 1 else { return RGBA(r: 0, g: 0, b: 0, a: 0) }
        return RGBA(r: background.red, g: background.green, b: background.blue)
    }
}

extension PixelBuffer {
    /// `background_alpha`: every pixel composited over `color` at `alpha` (source-over), so a
    /// transparent pixel becomes the background at that opacity and an opaque one stays.
    func flattened(on color: RGBColor, alpha: Double) -> PixelBuffer {
        let below = color.vector(alpha: Float(alpha * 255))
        return mappingColors { value, _, _ in
            let top = value.w / 255
            value = PixelBuffer.overlay(SIMD4(value.x, value.y, value.z, 255), opacity: top, on: below, keepAlpha: false)
        }
    }
}
