import WebImage

extension FrameStep {
    /// `colorize`: the colour laid over the image at the opacity. Without `keep_alpha` the
    /// overlay covers transparent pixels too (composited over them); with it, the pixels keep
    /// their alpha and only their colour is tinted.
    static let colorize = FrameStep(name: "colorize") { pixels, _, context in
        guard let colorize = context.options.colorFilters.colorize else { return pixels }
        let color = colorize.color.vector(), opacity = Float(colorize.opacity)
        return pixels.mappingColors { value, _, _ in
            value = PixelBuffer.overlay(color, opacity: opacity, on: value, keepAlpha: colorize.keepAlpha)
        }
    }
}

extension PixelBuffer {
    /// `color` at `opacity` composited over the straight-alpha `pixel` (source-over); with
    /// `keepAlpha`, the colour is mixed in and the pixel's alpha kept.
    static func overlay(_ color: SIMD4<Float>, opacity: Float, on pixel: SIMD4<Float>, keepAlpha: Bool) -> SIMD4<Float> {
        if keepAlpha {
            var mixed = pixel + (color - pixel) * opacity
            mixed.w = pixel.w
            return mixed
        }
        let below = pixel.w / 255
        let alpha = opacity + below * (1 - opacity)
        guard alpha > 0 else { return SIMD4(repeating: 0) }
        var out = (color * opacity + pixel * (below * (1 - opacity))) / alpha
        out.w = alpha * 255
        return out
    }
}
