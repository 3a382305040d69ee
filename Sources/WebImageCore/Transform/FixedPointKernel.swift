import CResampleKernels

/// The horizontal weights of a ``KernelTable`` in 16-bit fixed point, for rows whose pixels are
/// all opaque (their premultiplied values are the bytes themselves).
///
/// Two neighbouring taps are applied at once: the row is loaded as overlapping ``PixelPairs``
/// (`[r₀ r₁ g₀ g₁ b₀ b₁ a₀ a₁]` as `Int16`), and each pair step multiplies them by
/// `[w₀ w₁ w₀ w₁ w₀ w₁ w₀ w₁]` and adds neighbouring products into four `Int32` sums — one
/// multiply-add instruction on x86-64 (SSE2 `pmaddwd`) and a widening multiply on arm64. The
/// sums are exact; the only difference from the `Float` path is the rounding of each weight to
/// `1 / 2^precision` (at most ≈ 0.05 of a level for the widest kernels), and every output's
/// quantised weights add up to exactly `2^precision`, so flat areas stay exact.
struct FixedPointKernel {
    /// The weights in the order the convolution reads them: for each group of four outputs,
    /// its pair steps, each step the four outputs' `[w₀ w₁ w₀ w₁ w₀ w₁ w₀ w₁]` side by side;
    /// then, for each output past the last whole group, its steps. Steps past an output's
    /// taps are zero.
    let weights: [SIMD8<Int16>]
    /// For each group of four outputs, the pair steps its longest kernel needs; then one
    /// entry per output past the last whole group.
    let steps: [Int]
    /// `1 / 2^precision`: turns a sum back into 0…255 units.
    let scale: Float
    /// The weights' fractional bits.
    let precision: Int
    /// The largest sum of one output's weights' magnitudes, in units of `2^-precision`.
    let widest: Int
    /// The same quantised weights in the layout of the machine-width kernels (``WideKernels``;
    /// `wi_resample_horizontal` in `CResampleKernels` describes it): per output `blockStride`
    /// blocks of 32, counted from the output's even start.
    let taps: [Int16]
    /// Blocks of eight positions per output in ``taps``.
    let blockStride: Int
    /// The same weights packed, for the AVX-512 VNNI kernel (`wi_resample_horizontal_packed`):
    /// per output ``packedBlockStride`` blocks of eight, counted from the multiple of eight at
    /// or below its start.
    let packedTaps: [Int16]
    /// Blocks of eight positions per output in ``packedTaps``.
    let packedBlockStride: Int
    /// How that kernel groups the outputs by four (`wi_resample_packed_plan`).
    let plan: [Int32]

    /// The fixed-point form of `table`, or `nil` when its weights do not fit 16 bits with
    /// useful precision or its sums could overflow 32 bits (then the `Float` path is used).
    /// `packed`: whether the wide kernels run at level 4, which reads ``packedTaps`` and
    /// ``plan`` only (then ``taps`` is left empty; otherwise those two are).
    init?(_ table: KernelTable, packed: Bool = false) {
        let stride = table.stride
        let outputs = table.counts.count
        guard let precision = table.fixedPointPrecision(limit: 24) else { return nil }
        let one = 1 << precision
        // The pair steps of each group of four outputs, then of each output past the last.
        var steps: [Int] = []
        steps.reserveCapacity(outputs / 4 + 3)
        var total = 0
        var i = 0
        while i < outputs {
            let width = i + 4 <= outputs ? 4 : 1
            var longest = 0
            for o in i..<i + width { longest = max(longest, table.counts[o]) }
            steps.append((longest + 1) / 2)
            total += (longest + 1) / 2 * width
            i += width
        }
        var failed = false
        var widest = 0
        let blockStride = (stride + 1 + 7) / 8
        var taps = [Int16](repeating: 0, count: packed ? 0 : outputs * blockStride * 32)
        let packedBlockStride = (stride + 7 + 7) / 8
        var packedTaps = [Int16](repeating: 0, count: packed ? outputs * packedBlockStride * 8 : 0)
        let weights = [SIMD8<Int16>](unsafeUninitializedCapacity: total) { buffer, initialized in
            buffer.initialize(repeating: .zero)
            initialized = total
            do {
                var quantised = [Int](repeating: 0, count: stride + 1)
                var next = 0
                var group = 0
                var i = 0
                while i < outputs && !failed {
                    let width = i + 4 <= outputs ? 4 : 1
                    for o in 0..<width {
                        let output = i + o
                        let count = table.counts[output]
                        let (largestWeight, magnitude) = table.quantise(output: output, one: one, into: &quantised)
                        widest = max(widest, magnitude)
                        // Every weight must fit Int16, and every partial sum, at most
                        // 255 × Σ|w| in magnitude, Int32.
                        guard largestWeight <= 32767, magnitude <= Int(Int32.max) / 255 else {
                            failed = true
                            break
                        }
                        for t in 0..<(count + 1) / 2 {
                            let w0 = Int16(quantised[2 * t]), w1 = Int16(quantised[2 * t + 1])
                            buffer[next + t * width + o] = SIMD8(w0, w1, w0, w1, w0, w1, w0, w1)
                        }
                        if packed {
                            let at = output * packedBlockStride * 8 + (table.starts[output] & 7)
                            for k in 0..<count { packedTaps[at + k] = Int16(quantised[k]) }
                        } else {
                            let odd = table.starts[output] & 1
                            for k in 0..<count {
                                let j = k + odd, position = j % 8
                                let at = (output * blockStride + j / 8) * 32 + position / 2 * 8 + position % 2
                                let w = Int16(quantised[k])
                                (taps[at], taps[at + 2], taps[at + 4], taps[at + 6]) = (w, w, w, w)
                            }
                        }
                    }
                    next += steps[group] * width
                    group += 1
                    i += width
                }
            }
        }
        guard !failed else { return nil }
        self.weights = weights
        self.steps = steps
        self.scale = 1 / Float(one)
        self.precision = precision
        self.widest = widest
        self.taps = taps
        self.blockStride = blockStride
        self.packedTaps = packedTaps
        self.packedBlockStride = packedBlockStride
        self.plan = table.starts.withUnsafeBufferPointer { starts in
            table.counts.withUnsafeBufferPointer { counts in
                let count = packed ? wi_resample_packed_plan_count(outputs) : 0
                if count == 0 { return [] }
                return [Int32](unsafeUninitializedCapacity: count) { buffer, initialized in
                    wi_resample_packed_plan(outputs, starts.baseAddress, counts.baseAddress, buffer.baseAddress)
                    initialized = count
                }
            }
        }
    }

    /// Convolves one row of ``PixelPairs`` (indexed by input position) into `output`, as
    /// premultiplied floats in 0…255 units like ``KernelTable/convolve(_:into:)``.
    ///
    /// `pairs` must hold the loaded span and zeros for `table.stride` entries past it.
    @inline(__always)
    func convolve(_ pairs: UnsafePointer<SIMD8<Int16>>, table: KernelTable, into output: UnsafeMutablePointer<SIMD4<Float>>) {
        let scale = self.scale
        convolve(pairs, table: table) { i, sum in output[i] = SIMD4<Float>(sum) * scale }
    }

    /// Convolves one row of ``PixelPairs`` into `output` as ``OpaqueRows`` values:
    /// `(value − 128) · 128`, rounded, in `Int16` (the caller checked ``widest`` so they fit).
    @inline(__always)
    func convolve(_ pairs: UnsafePointer<SIMD8<Int16>>, table: KernelTable, into output: UnsafeMutablePointer<SIMD4<Int16>>) {
        let shift = Int32(precision - OpaqueRows.fraction)
        let half = SIMD4<Int32>(repeating: 1 << (shift - 1))
        let offset = SIMD4<Int32>(repeating: 128 << OpaqueRows.fraction)
        convolve(pairs, table: table) { i, sum in
            output[i] = Lanes.int16(truncating: ((sum &+ half) &>> shift) &- offset)
        }
    }

    /// The convolution, handing each output's sum (in units of `2^-precision`) to `emit`.
    @inline(__always)
    func convolve(_ pairs: UnsafePointer<SIMD8<Int16>>, table: KernelTable, _ emit: (Int, SIMD4<Int32>) -> Void) {
        weights.withUnsafeBufferPointer { w in
            table.starts.withUnsafeBufferPointer { s in
                steps.withUnsafeBufferPointer { m in
                    // Four outputs at a time, as in the Float path; the shorter ones run on
                    // over zero weights. (Wrapping arithmetic: every index is below the
                    // tables' sizes.)
                    let n = s.count
                    var i = 0
                    var g = 0
                    var weights = w.baseAddress!
                    while i &+ 4 <= n {
                        let f0 = pairs + s[i], f1 = pairs + s[i &+ 1], f2 = pairs + s[i &+ 2], f3 = pairs + s[i &+ 3]
                        var a0 = SIMD4<Int32>.zero, a1 = SIMD4<Int32>.zero, a2 = SIMD4<Int32>.zero, a3 = SIMD4<Int32>.zero
                        var t = 0
                        let count = m[g]
                        while t < count {
                            let p = 2 &* t
                            a0 &+= Self.multiplyAdd(f0[p], weights[0])
                            a1 &+= Self.multiplyAdd(f1[p], weights[1])
                            a2 &+= Self.multiplyAdd(f2[p], weights[2])
                            a3 &+= Self.multiplyAdd(f3[p], weights[3])
                            weights += 4
                            t &+= 1
                        }
                        emit(i, a0)
                        emit(i &+ 1, a1)
                        emit(i &+ 2, a2)
                        emit(i &+ 3, a3)
                        i &+= 4
                        g &+= 1
                    }
                    while i < n {
                        let from = pairs + s[i]
                        var acc = SIMD4<Int32>.zero
                        var t = 0
                        let count = m[g]
                        while t < count {
                            acc &+= Self.multiplyAdd(from[2 &* t], weights[0])
                            weights += 1
                            t &+= 1
                        }
                        emit(i, acc)
                        i &+= 1
                        g &+= 1
                    }
                }
            }
        }
    }

    /// `[p₀w₀ + p₁w₁, p₂w₂ + p₃w₃, …]`: the pattern LLVM turns into `pmaddwd` (SSE2).
    @inline(__always)
    static func multiplyAdd(_ pixels: SIMD8<Int16>, _ weights: SIMD8<Int16>) -> SIMD4<Int32> {
        let products = Lanes.int32(pixels) &* Lanes.int32(weights)
        return products.evenHalf &+ products.oddHalf
    }
}
