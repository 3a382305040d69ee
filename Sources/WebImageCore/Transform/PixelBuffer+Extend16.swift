extension PixelBuffer {
    /// ``extended(to:x:y:fill:)`` for an RGBA16 buffer: the fill widened to `c · 257`.
    func extended16(to size: PixelSize, x: Int, y: Int, fill: RGBA) -> PixelBuffer {
        let color = SIMD4<UInt16>(UInt16(fill.r), UInt16(fill.g), UInt16(fill.b), UInt16(fill.a)) &* 257
        return withSamples16 { source in
            PixelBuffer.make16(width: size.width, height: size.height) { out in
                for i in stride(from: 0, to: out.count, by: 4) {
                    out[i] = color[0]; out[i + 1] = color[1]; out[i + 2] = color[2]; out[i + 3] = color[3]
                }
                let rowSamples = width * 4
                for row in 0..<height {
                    let target = ((y + row) * size.width + x) * 4
                    for i in 0..<rowSamples { out[target + i] = source[row * rowSamples + i] }
                }
            }
        }
    }
}
