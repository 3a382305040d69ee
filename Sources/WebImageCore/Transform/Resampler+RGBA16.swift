/// The resampler on ``PixelFormat/rgba16`` buffers: the same kernel tables and streaming ring
/// of horizontally filtered rows as the RGBA8 path, with premultiplied `SIMD4<Float>` values in
/// 0…65535 (a `Float` holds every 16-bit value exactly) and one rounding at the end. There is
/// no fixed-point shortcut: 16-bit images take the `Float` path whether opaque or not.
extension Resampler {
    func resample16(_ source: PixelBuffer, to size: PixelSize, region: ResampleRegion?) -> PixelBuffer {
        let dw = max(1, size.width)
        let dh = max(1, size.height)
        let sw = source.width
        let sh = source.height
        let box = Self.clip(region, width: sw, height: sh)
        if box.x == 0 && box.y == 0 && box.width == Double(sw) && box.height == Double(sh) && dw == sw && dh == sh {
            return source
        }
        let xTable = KernelTable(filter: filter, inSize: sw, outSize: dw, start: box.x, length: box.width)
        let yTable = KernelTable(filter: filter, inSize: sh, outSize: dh, start: box.y, length: box.height)
        let threads = maxThreads
        let cancellation = WorkCancellation.current
        return source.withSamples16 { src in
            PixelBuffer.make16(width: dw, height: dh) { out in
                guard let base = src.baseAddress, let outBase = out.baseAddress else { return }
                forEachChunk(dh, threads: threads) { rows in
                    // Zero past the loaded span: the grouped convolutions read up to
                    // `xTable.stride` values past an output's first input.
                    let lineCount = sw + xTable.stride
                    let line = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: lineCount)
                    line.initialize(repeating: .zero, count: lineCount)
                    defer { line.deallocate() }
                    let capacity = yTable.stride
                    let ring = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: capacity * dw)
                    defer { ring.deallocate() }
                    let lo = xTable.firstInput, end = xTable.endInput
                    var ringStart = 0, ringEnd = 0
                    for y in rows {
                        if cancellation?.isCancelled == true { return }
                        let start = yTable.starts[y]
                        let count = yTable.counts[y]
                        if start < ringStart || start > ringEnd { (ringStart, ringEnd) = (start, start) }
                        while ringEnd < start + count {
                            let row = base + ringEnd * sw * 4
                            for x in lo..<end { line[x] = Self.premultiplied16(row + x * 4) }
                            xTable.convolve(line, into: ring + (ringEnd % capacity) * dw)
                            ringEnd += 1
                            ringStart = max(ringStart, ringEnd - capacity)
                        }
                        let weights = y * yTable.stride
                        let target = outBase + y * dw * 4
                        for x in 0..<dw {
                            var acc = SIMD4<Float>.zero
                            for k in 0..<count {
                                acc += ring[((start + k) % capacity) * dw + x] * yTable.weights[weights + k]
                            }
                            Self.storeStraight16(acc, target + x * 4)
                        }
                    }
                }
                // Cancelled: the rows not made are zero, not uninitialised memory.
                if cancellation?.isCancelled == true { out.update(repeating: 0) }
            }
        }
    }

    /// One straight RGBA16 pixel as premultiplied floats `(r·a/65535, g·a/65535, b·a/65535, a)`.
    @inline(__always)
    static func premultiplied16(_ p: UnsafePointer<UInt16>) -> SIMD4<Float> {
        let a = Float(p[3])
        let s = a * (1 / 65_535)
        return SIMD4(Float(p[0]) * s, Float(p[1]) * s, Float(p[2]) * s, a)
    }

    /// A premultiplied value stored as straight RGBA16, rounded and clamped; alpha that rounds
    /// to 0 gives `(0, 0, 0, 0)`.
    @inline(__always)
    static func storeStraight16(_ v: SIMD4<Float>, _ p: UnsafeMutablePointer<UInt16>) {
        let a = v.w
        guard a >= 0.5 else {
            p[0] = 0; p[1] = 0; p[2] = 0; p[3] = 0
            return
        }
        let s = 65_535 / min(a, 65_535)
        let straight = v * SIMD4(s, s, s, 1)
        for lane in 0..<4 {
            let c = straight[lane]
            p[lane] = c >= 65_534.5 ? .max : (c > 0 ? UInt16(c + 0.5) : 0)
        }
    }
}
