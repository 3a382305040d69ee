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

    /// Creates a grayscale conversion with the given luma weights.
    public init(coefficients: LumaCoefficients = .rec601) {
        self.coefficients = coefficients
    }

    public var transformerKey: String { "GrayscaleTransformer(luma=\(coefficients.rawValue))" }

    public func transform(_ image: Image, key: String) -> Image? {
        // 8-bit only: a 16-bit image is converted first (SPEC H-1).
        let image = image.convertedToRGBA8()
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
