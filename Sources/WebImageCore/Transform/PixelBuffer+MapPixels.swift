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
