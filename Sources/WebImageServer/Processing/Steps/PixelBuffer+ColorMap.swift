import WebImage

extension PixelBuffer {
    /// Every pixel through `body` as straight-alpha RGBA in 0…255 (with its column and row),
    /// rounded and clamped back to bytes: the colour steps' one loop. A 16-bit buffer is
    /// narrowed to 8 bits first.
    func mappingColors(_ body: (inout SIMD4<Float>, _ x: Int, _ y: Int) -> Void) -> PixelBuffer {
        let source = convertedToRGBA8().bytes, width = width
        return PixelBuffer.make(width: width, height: height) { out in
            for y in 0..<height {
                for x in 0..<width {
                    let i = (y * width + x) * 4
                    var value = SIMD4<Float>(Float(source[i]), Float(source[i + 1]), Float(source[i + 2]), Float(source[i + 3]))
                    body(&value, x, y)
                    let clamped = value.rounded(.toNearestOrEven).clamped(lowerBound: SIMD4(repeating: 0), upperBound: SIMD4(repeating: 255))
                    out[i] = UInt8(clamped.x)
                    out[i + 1] = UInt8(clamped.y)
                    out[i + 2] = UInt8(clamped.z)
                    out[i + 3] = UInt8(clamped.w)
                }
            }
        }
    }

    /// Rec. 601 luma of `value`'s colour, 0…255 (what `saturation`, `monochrome` and
    /// `duotone` take as the pixel's lightness).
    static func luma(_ value: SIMD4<Float>) -> Float {
        0.299 * value.x + 0.587 * value.y + 0.114 * value.z
    }
}

extension RGBColor {
    /// The colour as RGB in 0…255 with `alpha`.
    func vector(alpha: Float = 255) -> SIMD4<Float> {
        SIMD4(Float(red), Float(green), Float(blue), alpha)
    }
}
