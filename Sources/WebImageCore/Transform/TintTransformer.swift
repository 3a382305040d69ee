/// How ``TintTransformer`` combines its colour with the image.
public enum TintBlendMode: String, Sendable, Hashable, CaseIterable {
    /// The tint colour is drawn over the image only where the image is (Porter–Duff
    /// source-atop): colour = tint·tintAlpha + image·(1 − tintAlpha); the image's alpha is kept.
    /// An opaque tint turns the image into a silhouette of that colour.
    case sourceAtop
    /// The image's colour is multiplied by the tint colour, mixed by the tint's alpha:
    /// colour = image·(1 − tintAlpha + tint·tintAlpha); the image's alpha is kept. Keeps shading.
    case multiply
}

/// Tints every frame with a colour (SPEC T-2). Alpha is never changed, so transparent
/// edges stay as they were.
///
/// Key: `TintTransformer(color=#rrggbbaa,blend=sourceAtop)`.
public struct TintTransformer: ImageTransformer {
    /// The tint colour (straight alpha); its alpha is the tint strength.
    public let color: RGBA
    /// How the colour is combined with the image.
    public let blendMode: TintBlendMode

    /// Creates a tint with `color` combined by `blendMode`.
    public init(color: RGBA, blendMode: TintBlendMode = .sourceAtop) {
        self.color = color
        self.blendMode = blendMode
    }

    public var transformerKey: String { "TintTransformer(color=\(keyColor(color)),blend=\(blendMode.rawValue))" }

    public func transform(_ image: Image, key: String) -> Image? {
        // 8-bit only: a 16-bit image is converted first (SPEC H-1).
        let image = image.convertedToRGBA8()
        let ta = Float(color.a) / 255
        let tint = SIMD4<Float>(Float(color.r), Float(color.g), Float(color.b), 0)
        let mode = blendMode
        // Both modes are per pixel and keep alpha, so working on straight colour gives exactly
        // what premultiply → blend → unpremultiply would, without the rounding loss.
        return image.mappingFrames { frame in
            frame.mappingPixels { p in
                var c = p
                switch mode {
                case .sourceAtop: c = tint * ta + p * (1 - ta)
                case .multiply: c = p * ((1 - ta) + tint * (ta / 255))
                }
                c.w = p.w
                return c
            }
        }
    }
}
