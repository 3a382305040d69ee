import WebImage

extension FrameStep {
    /// `duotone`: the pixel's luma mapped from the dark colour (black) to the light colour
    /// (white), mixed with the pixel by the intensity; alpha kept.
    static let duotone = FrameStep(name: "duotone") { pixels, _, context in
        guard let duotone = context.options.colorFilters.duotone else { return pixels }
        let dark = duotone.dark.vector(), light = duotone.light.vector(), intensity = Float(duotone.intensity)
        return pixels.mappingColors { value, _, _ in
            let tone = dark + (light - dark) * (PixelBuffer.luma(value) / 255)
            let alpha = value.w
            value += (tone - value) * intensity
            value.w = alpha
        }
    }
}
