import WebImage

extension FrameStep {
    /// `adjust`, `brightness`, `contrast`, `saturation`: each colour channel moved away from the
    /// pixel's luma by `saturation`, then scaled around 128 by `contrast`, then `brightness`
    /// added; alpha kept.
    static let adjust = FrameStep(name: "adjust") { pixels, _, context in
        let filters = context.options.colorFilters
        guard filters.brightness != 0 || filters.contrast != 1 || filters.saturation != 1 else { return pixels }
        let saturation = Float(filters.saturation), contrast = Float(filters.contrast), brightness = Float(filters.brightness)
        return pixels.mappingColors { value, _, _ in
            let alpha = value.w
            let luma = PixelBuffer.luma(value)
            var rgb = SIMD4(repeating: luma) + (value - SIMD4(repeating: luma)) * saturation
            rgb = (rgb - SIMD4(repeating: 128)) * contrast + SIMD4(repeating: 128 + brightness)
            value = rgb
            value.w = alpha
        }
    }
}
