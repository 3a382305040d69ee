/// The vertical pass for images whose resampled span is entirely opaque, in 16-bit fixed point.
///
/// The horizontal pass (``FixedPointKernel``) leaves each filtered row as `(value − 128) · 128`
/// in `Int16`: seven fractional bits, and the offset keeps kernel overshoot (values from −127
/// to 382 for kernels whose weights' magnitudes add up to at most 2) within range. Each output
/// row then adds two filtered rows per multiply-add — the rows' values interleaved channel by
/// channel, times `[w₀ w₁ w₀ w₁ …]` (SSE2 `pmaddwd`) — and is rounded and clamped once, with no
/// division (alpha is 255 throughout). Against the `Float` path the differences are the
/// intermediate's rounding (≤ 1/256 of a level) and the weights' (≤ 2⁻¹⁶ each), far below the
/// final rounding.
struct OpaqueRows {
    /// Fractional bits of the filtered rows.
    static let fraction = 7
    /// For each output row, `pairStride` steps of `[w_2t w_2t+1]` four times; zero past its taps.
    let weights: [SIMD8<Int16>]
    let pairStride: Int
    /// The weights' fractional bits.
    let precision: Int

    /// The fixed-point vertical weights of `table`, or `nil` when they do not fit 16 bits with
    /// useful precision or a sum could overflow 32 bits.
    init?(_ table: KernelTable) {
        let stride = table.stride
        let outputs = table.counts.count
        guard let precision = table.fixedPointPrecision(limit: 15) else { return nil }
        let one = 1 << precision
        let pairStride = (stride + 1) / 2
        var steps = [SIMD8<Int16>](repeating: .zero, count: outputs * pairStride)
        var quantised = [Int](repeating: 0, count: stride + 1)
        for i in 0..<outputs {
            let count = table.counts[i]
            let (largestWeight, magnitude) = table.quantise(output: i, one: one, into: &quantised)
            // Values are within ±2¹⁵, so Σ|w| ≤ 2¹⁶ − 1 keeps every sum within Int32.
            guard largestWeight <= 32767, magnitude <= 65535 else { return nil }
            for t in 0..<(count + 1) / 2 {
                let w0 = Int16(quantised[2 * t]), w1 = Int16(quantised[2 * t + 1])
                steps[i * pairStride + t] = SIMD8(w0, w1, w0, w1, w0, w1, w0, w1)
            }
        }
        self.weights = steps
        self.pairStride = pairStride
        self.precision = precision
    }

    /// Output row `y` from its `count` filtered rows (`rows[0..<count]`; `rows[count]` must be
    /// readable too, any row: its weight is zero), `width` pixels, into RGBA8 `bytes`.
    @inline(__always)
    func filter(
        _ rows: UnsafeMutablePointer<UnsafePointer<SIMD4<Int16>>>, count: Int, output y: Int, width: Int,
        into bytes: UnsafeMutablePointer<UInt8>
    ) {
        let shift = Int32(precision + Self.fraction)
        let half = SIMD4<Int32>(repeating: 1 << (shift - 1))
        let out = UnsafeMutableRawPointer(bytes)
        @inline(__always) func put(_ sum: SIMD4<Int32>, _ x: Int) {
            let v = ((sum &+ half) &>> shift) &+ 128
            out.storeBytes(of: Lanes.clampedBytes(v), toByteOffset: x &* 4, as: SIMD4<UInt8>.self)
        }
        @inline(__always) func interleave(_ a: SIMD8<Int16>, _ b: SIMD8<Int16>) -> (SIMD8<Int16>, SIMD8<Int16>) {
            (SIMD8(a[0], b[0], a[1], b[1], a[2], b[2], a[3], b[3]), SIMD8(a[4], b[4], a[5], b[5], a[6], b[6], a[7], b[7]))
        }
        let steps = (count + 1) / 2
        weights.withUnsafeBufferPointer { all in
            let w = all.baseAddress! + y * pairStride
            var x = 0
            // Eight pixels at a time (eight independent sums), two rows per step.
            while x &+ 8 <= width {
                var a0 = SIMD4<Int32>.zero, a1 = SIMD4<Int32>.zero, a2 = SIMD4<Int32>.zero, a3 = SIMD4<Int32>.zero
                var a4 = SIMD4<Int32>.zero, a5 = SIMD4<Int32>.zero, a6 = SIMD4<Int32>.zero, a7 = SIMD4<Int32>.zero
                var t = 0
                while t < steps {
                    let r0 = UnsafeRawPointer(rows[2 &* t] + x), r1 = UnsafeRawPointer(rows[2 &* t &+ 1] + x)
                    let weight = w[t]
                    let (p0, p1) = interleave(r0.loadUnaligned(as: SIMD8<Int16>.self), r1.loadUnaligned(as: SIMD8<Int16>.self))
                    a0 &+= FixedPointKernel.multiplyAdd(p0, weight)
                    a1 &+= FixedPointKernel.multiplyAdd(p1, weight)
                    let (p2, p3) = interleave(
                        r0.loadUnaligned(fromByteOffset: 16, as: SIMD8<Int16>.self),
                        r1.loadUnaligned(fromByteOffset: 16, as: SIMD8<Int16>.self))
                    a2 &+= FixedPointKernel.multiplyAdd(p2, weight)
                    a3 &+= FixedPointKernel.multiplyAdd(p3, weight)
                    let (p4, p5) = interleave(
                        r0.loadUnaligned(fromByteOffset: 32, as: SIMD8<Int16>.self),
                        r1.loadUnaligned(fromByteOffset: 32, as: SIMD8<Int16>.self))
                    a4 &+= FixedPointKernel.multiplyAdd(p4, weight)
                    a5 &+= FixedPointKernel.multiplyAdd(p5, weight)
                    let (p6, p7) = interleave(
                        r0.loadUnaligned(fromByteOffset: 48, as: SIMD8<Int16>.self),
                        r1.loadUnaligned(fromByteOffset: 48, as: SIMD8<Int16>.self))
                    a6 &+= FixedPointKernel.multiplyAdd(p6, weight)
                    a7 &+= FixedPointKernel.multiplyAdd(p7, weight)
                    t &+= 1
                }
                put(a0, x)
                put(a1, x &+ 1)
                put(a2, x &+ 2)
                put(a3, x &+ 3)
                put(a4, x &+ 4)
                put(a5, x &+ 5)
                put(a6, x &+ 6)
                put(a7, x &+ 7)
                x &+= 8
            }
            while x < width {
                var acc = SIMD4<Int32>.zero
                var t = 0
                while t < steps {
                    let a = rows[2 &* t][x], b = rows[2 &* t &+ 1][x]
                    acc &+= FixedPointKernel.multiplyAdd(SIMD8(a[0], b[0], a[1], b[1], a[2], b[2], a[3], b[3]), w[t])
                    t &+= 1
                }
                put(acc, x)
                x &+= 1
            }
        }
    }
}
