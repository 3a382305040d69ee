extension PixelBuffer {
    /// A box-filter (area-average) resample to `size`, alpha-weighted so that transparent
    /// pixels do not darken edges. It is what codecs use to finish a thumbnail after shrinking
    /// during decode; the transformers module offers higher-quality filters.
    ///
    /// Each destination pixel averages the source rectangle `[x0, x1) × [y0, y1)` with
    /// `x0 = dx·sw/dw`, `x1 = max(x0 + 1, (dx + 1)·sw/dw)` (rows alike): colour channels are
    /// `(Σ c·α + A/2) / A` where `A = Σ α`, alpha is `(A + n/2) / n` over the `n` pixels, and a
    /// rectangle with `A = 0` becomes transparent black.
    ///
    /// An RGBA16 buffer goes through ``Resampler`` with the box filter, in 16 bits.
    ///
    /// Enlarging falls back to nearest-neighbour (each destination pixel covers at least one
    /// source pixel).
    public func downscaled(to size: PixelSize) -> PixelBuffer {
        let dw = max(1, size.width)
        let dh = max(1, size.height)
        if dw == width && dh == height { return self }
        if format == .rgba16 { return Resampler(filter: .box).resample(self, to: PixelSize(width: dw, height: dh)) }
        let sw = width
        let sh = height
        // Hot loop on raw pointers (the PNG thumbnail path runs it over every decoded pixel):
        // no Array bounds or uniqueness checks, one pass over each source row.
        return bytes.withUnsafeBufferPointer { source in
            PixelBuffer.make(width: dw, height: dh) { out in
                guard let src = source.baseAddress, let dst = out.baseAddress else { return }
                // Source column span of each destination column, as byte offsets in a row.
                let spans = UnsafeMutablePointer<Int>.allocate(capacity: dw * 2)
                defer { spans.deallocate() }
                for dx in 0..<dw {
                    let x0 = dx * sw / dw
                    spans[dx * 2] = x0 * 4
                    spans[dx * 2 + 1] = max(x0 + 1, (dx + 1) * sw / dw) * 4
                }
                // Per destination column of the current row: Σ r·α, Σ g·α, Σ b·α, Σ α.
                let sums = UnsafeMutablePointer<UInt64>.allocate(capacity: dw * 4)
                defer { sums.deallocate() }
                for dy in 0..<dh {
                    let y0 = dy * sh / dh
                    let y1 = max(y0 + 1, (dy + 1) * sh / dh)
                    sums.initialize(repeating: 0, count: dw * 4)
                    for y in y0..<y1 {
                        let row = src + y * sw * 4
                        for dx in 0..<dw {
                            var r: UInt64 = 0, g: UInt64 = 0, b: UInt64 = 0, a: UInt64 = 0
                            var p = row + spans[dx * 2]
                            let end = row + spans[dx * 2 + 1]
                            while p < end {
                                let alpha = UInt64(p[3])
                                r &+= UInt64(p[0]) &* alpha
                                g &+= UInt64(p[1]) &* alpha
                                b &+= UInt64(p[2]) &* alpha
                                a &+= alpha
                                p += 4
                            }
                            let s = sums + dx * 4
                            s[0] &+= r
                            s[1] &+= g
                            s[2] &+= b
                            s[3] &+= a
                        }
                    }
                    let rows = UInt64(y1 - y0)
                    let o = dst + dy * dw * 4
                    for dx in 0..<dw {
                        let s = sums + dx * 4
                        let a = s[3]
                        let q = o + dx * 4
                        if a == 0 {
                            q[0] = 0; q[1] = 0; q[2] = 0; q[3] = 0
                        } else {
                            let n = UInt64((spans[dx * 2 + 1] - spans[dx * 2]) / 4) * rows
                            q[0] = UInt8(truncatingIfNeeded: (s[0] + a / 2) / a)
                            q[1] = UInt8(truncatingIfNeeded: (s[1] + a / 2) / a)
                            q[2] = UInt8(truncatingIfNeeded: (s[2] + a / 2) / a)
                            q[3] = UInt8(truncatingIfNeeded: (a + n / 2) / n)
                        }
                    }
                }
            }
        }
    }
}
