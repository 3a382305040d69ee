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

    public init(color: RGBA, blendMode: TintBlendMode = .sourceAtop) {
        self.color = color
        self.blendMode = blendMode
    }

    public var transformerKey: String { "TintTransformer(color=\(keyColor(color)),blend=\(blendMode.rawValue))" }

    public func transform(_ image: Image, key: String) -> Image? {
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

/// The luma weights ``GrayscaleTransformer`` uses.
public enum LumaCoefficients: String, Sendable, Hashable, CaseIterable {
    /// ITU-R BT.601: 0.299 R + 0.587 G + 0.114 B (what JPEG, Pillow's `convert("L")` and most
    /// image tools use). The default.
    case rec601
    /// ITU-R BT.709: 0.2126 R + 0.7152 G + 0.0722 B (HD video primaries).
    case rec709

    var weights: SIMD4<Float> {
        switch self {
        case .rec601: SIMD4(0.299, 0.587, 0.114, 0)
        case .rec709: SIMD4(0.2126, 0.7152, 0.0722, 0)
        }
    }
}

/// Turns every frame grey (SPEC T-2): each pixel's R, G and B become its luma (applied to the
/// stored sRGB values, as Pillow does); alpha is kept.
///
/// Key: `GrayscaleTransformer(luma=rec601)`.
public struct GrayscaleTransformer: ImageTransformer {
    /// The luma weights.
    public let coefficients: LumaCoefficients

    public init(coefficients: LumaCoefficients = .rec601) {
        self.coefficients = coefficients
    }

    public var transformerKey: String { "GrayscaleTransformer(luma=\(coefficients.rawValue))" }

    public func transform(_ image: Image, key: String) -> Image? {
        let weights = coefficients.weights
        // Per pixel and alpha-preserving: straight and premultiplied computation agree.
        return image.mappingFrames { frame in
            frame.mappingPixels { p in
                let y = (p * weights).sum()
                return SIMD4(y, y, y, p.w)
            }
        }
    }
}

extension PixelBuffer {
    /// A new buffer with `body` applied to every straight-alpha pixel (channels 0…255 as
    /// floats); results are rounded and clamped.
    func mappingPixels(_ body: (SIMD4<Float>) -> SIMD4<Float>) -> PixelBuffer {
        bytes.withUnsafeBufferPointer { src in
            PixelBuffer.make(width: width, height: height) { out in
                var i = 0
                while i + 3 < src.count {
                    let p = SIMD4<Float>(Float(src[i]), Float(src[i + 1]), Float(src[i + 2]), Float(src[i + 3]))
                    let c = (body(p) + 0.5).clamped(lowerBound: SIMD4(repeating: 0), upperBound: SIMD4(repeating: 255))
                    out[i] = UInt8(c.x)
                    out[i + 1] = UInt8(c.y)
                    out[i + 2] = UInt8(c.z)
                    out[i + 3] = UInt8(c.w)
                    i += 4
                }
            }
        }
    }
}
