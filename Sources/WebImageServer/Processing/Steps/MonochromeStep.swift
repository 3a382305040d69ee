import WebImage

extension FrameStep {
    /// `monochrome`: the pixel's luma mapped onto a palette from black through the option's
    /// colour (at mid grey) to white, mixed with the pixel by the intensity; alpha kept.
    static let monochrome = FrameStep(name: "monochrome") { pixels, _, context in
        guard let tint = context.options.colorFilters.monochrome else { return pixels }
        let base = tint.color.vector(), intensity = Float(tint.intensity)
        let white = SIMD4<Float>(repeating: 255)
        return pixels.mappingColors { value, _, _ in
            let lightness = PixelBuffer.luma(value) / 255
            let tone = lightness < 0.5 ? base * (2 * lightness) : base + (white - base) * (2 * lightness - 1)
            let alpha = value.w
            value += (tone - value) * intensity
            value.w = alpha
        }
    }
}
