extension PixelBuffer {
    /// A box-filter (area-average) resample to `size`, alpha-weighted so that transparent
    /// pixels do not darken edges. It is what codecs use to finish a thumbnail after shrinking
    /// during decode; the transformers module offers higher-quality filters.
    ///
    /// Enlarging falls back to nearest-neighbour (each destination pixel covers at least one
    /// source pixel).
    public func downscaled(to size: PixelSize) -> PixelBuffer {
        let dw = max(1, size.width)
        let dh = max(1, size.height)
        if dw == width && dh == height { return self }
        let sw = width
        let sh = height
        // Source spans for each destination column/row.
        let xSpans = (0..<dw).map { dx -> (Int, Int) in
            let x0 = dx * sw / dw
            return (x0, max(x0 + 1, (dx + 1) * sw / dw))
        }
        return bytes.withUnsafeBufferPointer { src in
            PixelBuffer.make(width: dw, height: dh) { out in
                var acc = [UInt64](repeating: 0, count: dw * 4)
                var alphaSum = [UInt64](repeating: 0, count: dw)
                var counts = [UInt64](repeating: 0, count: dw)
                for dy in 0..<dh {
                    let y0 = dy * sh / dh
                    let y1 = max(y0 + 1, (dy + 1) * sh / dh)
                    for i in 0..<acc.count { acc[i] = 0 }
                    for i in 0..<dw { alphaSum[i] = 0; counts[i] = 0 }
                    for y in y0..<y1 {
                        let row = y * sw * 4
                        for dx in 0..<dw {
                            let (x0, x1) = xSpans[dx]
                            var r: UInt64 = 0, g: UInt64 = 0, b: UInt64 = 0, a: UInt64 = 0
                            var p = row + x0 * 4
                            for _ in x0..<x1 {
                                let alpha = UInt64(src[p + 3])
                                r += UInt64(src[p]) * alpha
                                g += UInt64(src[p + 1]) * alpha
                                b += UInt64(src[p + 2]) * alpha
                                a += alpha
                                p += 4
                            }
                            acc[dx * 4] += r
                            acc[dx * 4 + 1] += g
                            acc[dx * 4 + 2] += b
                            alphaSum[dx] += a
                            counts[dx] += UInt64(x1 - x0)
                        }
                    }
                    let outRow = dy * dw * 4
                    for dx in 0..<dw {
                        let a = alphaSum[dx]
                        let o = outRow + dx * 4
                        if a == 0 {
                            out[o] = 0; out[o + 1] = 0; out[o + 2] = 0; out[o + 3] = 0
                        } else {
                            out[o] = UInt8((acc[dx * 4] + a / 2) / a)
                            out[o + 1] = UInt8((acc[dx * 4 + 1] + a / 2) / a)
                            out[o + 2] = UInt8((acc[dx * 4 + 2] + a / 2) / a)
                            out[o + 3] = UInt8((a + counts[dx] / 2) / counts[dx])
                        }
                    }
                }
            }
        }
    }
}
