extension PixelBuffer {
    /// These pixels sharpened by an unsharp mask: `p + (p − blur(p, σ))` per colour channel,
    /// with the exact Gaussian blur (``PixelBuffer/blurredExactly(sigma:)``) at `sigma` capped at 8; alpha is
    /// kept.
    public func sharpened(sigma: Double) -> PixelBuffer {
        let blurred = blurredExactly(sigma: min(sigma, 8))
        return PixelBuffer.make(width: width, height: height) { out in
            bytes.withUnsafeBufferPointer { source in
                blurred.bytes.withUnsafeBufferPointer { soft in
                    for index in 0..<source.count {
                        if index % 4 == 3 { out[index] = source[index]; continue }
                        let value = 2 * Int(source[index]) - Int(soft[index])
                        out[index] = UInt8(clamping: value)
                    }
                }
            }
        }
    }
}

/// Sharpens every frame with an unsharp mask (imgproxy's `sharpen`; see
/// ``PixelBuffer/sharpened(sigma:)``).
///
/// Key: `SharpenTransformer(sigma=σ)`.
public struct SharpenTransformer: ImageTransformer {
    /// The Gaussian's standard deviation in pixels (capped at 8).
    public let sigma: Double

    /// Sharpens with a mask of standard deviation `sigma`.
    public init(sigma: Double) {
        self.sigma = sigma
    }

    public var transformerKey: String { "SharpenTransformer(sigma=\(sigma))" }

    public func transform(_ image: Image, key: String) -> Image? {
        // 8-bit only: a 16-bit image is converted first (SPEC H-1).
        let image = image.convertedToRGBA8()
        guard sigma > 0 else { return image }
        return image.mappingFrames { $0.sharpened(sigma: sigma) }
    }
}
