import Dispatch

/// A rectangle in source pixel coordinates with fractional edges, for resampling part of an
/// image (Pillow's `box`).
public struct ResampleRegion: Sendable, Hashable {
    /// Left edge in source pixels.
    public var x: Double
    /// Top edge in source pixels.
    public var y: Double
    /// Width in source pixels.
    public var width: Double
    /// Height in source pixels.
    public var height: Double

    /// Creates a region; it is clipped to the image when used.
    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }
}

/// High-quality image resampling: a separable two-pass convolution (horizontal, then vertical)
/// with the weights of every output column and row computed once, premultiplied `SIMD4<Float>`
/// accumulation, and one rounding at the end. Opaque pixels take 16-bit fixed-point passes
/// instead (two taps per multiply-add, no alpha division), about twice as fast and within one
/// level per channel of the `Float` result. Rows with transparency are premultiplied exactly in
/// integers and filtered horizontally in 16-bit fixed point too (`PremultipliedKernel`),
/// then vertically in `Float`: within one level per channel where alpha is 128 or more, and
/// within one level of premultiplied colour where it is fainter.
///
/// Works for shrinking and enlarging (the kernel widens with the shrink factor, so shrinking
/// averages the whole source area). Output matches Pillow's `Image.resize` with the same filter
/// to within rounding (see ``ResizeFilter``).
///
/// Memory: per thread, a ring of horizontally filtered rows (`outputWidth` × the kernel's height
/// in source rows, 16 bytes per value, 8 in fixed point) and one source row; the source is read
/// once, row by row, and each output pixel accumulates its kernel's rows in registers.
public struct Resampler: Sendable {
    /// The kernel.
    public var filter: ResizeFilter
    /// How many threads may work on one image (rows are split between them). 1 (the default)
    /// runs on the calling thread only; the pipeline already runs several images in parallel.
    public var maxThreads: Int
    /// Whether rows whose pixels are all opaque take the 16-bit fixed-point horizontal pass
    /// (``FixedPointKernel``; the default) rather than the `Float` one. The two agree within
    /// one level per channel; tests turn it off to compare them.
    var usesFixedPoint = true
    /// The kernel set of the fixed-point passes (``WideKernels/level``): the machine's widest
    /// (the default) or 0, the portable Swift passes; the pixels are the same either way. Tests
    /// set it to compare every set this machine has, and to exercise the portable passes.
    var kernelLevel: Int32 = WideKernels.level
    /// Whether rows with transparency take the fixed-point premultiplied passes
    /// (`PremultipliedKernel`) on their portable C where no wide set has them (kernel level 0
    /// or NEON): slower there than the `Float` path, which they take otherwise. Tests set it to
    /// compare the wide sets with the portable C.
    var premultipliedPortable = false

    /// The vector kernels the fixed-point passes for opaque pixels run on here: "avx2",
    /// "avx512bw" or "avx512vnni" (AVX-512BW with VBMI and VNNI; x86-64 CPUs that have them,
    /// found at run time), "neon" (arm64) or "portable"
    /// (the Swift passes at the architecture's baseline, also when
    /// `WEBIMAGE_RESAMPLE_KERNELS=portable` is set; `=avx2` caps it at AVX2). The
    /// pixels are the same with every one.
    public static var vectorKernels: String { WideKernels.name(WideKernels.level) }

    /// Creates a resampler.
    public init(filter: ResizeFilter = .lanczos3, maxThreads: Int = 1) {
        self.filter = filter
        self.maxThreads = max(1, min(maxThreads, 64))
    }

    /// Resamples `region` of `source` (the whole image when `nil`) to `size`, in the source's
    /// pixel format (RGBA16 through a `Float` path, see `resample16`).
    ///
    /// Sizes below 1 are treated as 1. The caller decides whether `size` is affordable (the
    /// transformers check it against the pixel limit). Resampling the whole image to its own
    /// size returns `source` itself.
    public func resample(_ source: PixelBuffer, to size: PixelSize, region: ResampleRegion? = nil) -> PixelBuffer {
        if source.format == .rgba16 { return resample16(source, to: size, region: region) }
        let dw = max(1, size.width)
        let dh = max(1, size.height)
        let sw = source.width
        let sh = source.height
        let box = Self.clip(region, width: sw, height: sh)
        let fullX = box.x == 0 && box.width == Double(sw)
        let fullY = box.y == 0 && box.height == Double(sh)
        if fullX && fullY && dw == sw && dh == sh { return source }

        let skipX = fullX && dw == sw
        let skipY = fullY && dh == sh
        let xTable = KernelTable(filter: filter, inSize: sw, outSize: dw, start: box.x, length: box.width)
        let yTable = KernelTable(filter: filter, inSize: sh, outSize: dh, start: box.y, length: box.height)
        let threads = maxThreads
        let level = min(kernelLevel, WideKernels.level)
        let xFixed = skipX || !usesFixedPoint ? nil : FixedPointKernel(xTable, packed: level == 4)
        // Made only for the rows the opaque passes leave (none, for an opaque image).
        let premultiplies = !skipX && usesFixedPoint && (WideKernels.hasPremultiplied(level) || premultipliedPortable)
        // Read on the calling (pool) thread: the chunks run on other threads. Once set, the
        // rows left are not computed (the caller discards the result).
        let cancellation = WorkCancellation.current

        return source.bytes.withUnsafeBufferPointer { src in
            PixelBuffer.make(width: dw, height: dh) { out in
                guard let base = src.baseAddress, let outBase = out.baseAddress else { return }
                // Both passes in fixed point while the source rows are opaque, when the
                // horizontal values fit `OpaqueRows`' Int16 range (weights' magnitudes add up to
                // at most 2). Not even tried when the span's top row has transparency.
                let fitsInt16 = xFixed.map { $0.widest <= 2 << $0.precision } ?? false
                let yFixed = fitsInt16 && !skipY
                    && PixelPairs.areOpaque(
                        base + (yTable.firstInput * sw + xTable.firstInput) * 4, count: xTable.endInput - xTable.firstInput)
                    ? OpaqueRows(yTable) : nil
                // One horizontally filtered source row, premultiplied, `dw` values: opaque rows
                // (every alpha 255, checked per row) through the 16-bit fixed-point kernel when
                // there is one; the rest on exact premultiplied integers (`PremultipliedKernel`)
                // where this kernel set has them, else through the Float path.
                // Returns whether the row was found opaque: then its alpha values are 255 up to
                // the weights' rounding, and output rows made of such rows only need no division.
                func filterRow(
                    _ sourceRowIndex: Int, xPremultiplied: PremultipliedKernel?, into target: UnsafeMutablePointer<SIMD4<Float>>,
                    line: UnsafeMutablePointer<SIMD4<Float>>, pairs: UnsafeMutablePointer<SIMD8<Int16>>?,
                    premultipliedPairs: UnsafeMutablePointer<Int16>?
                ) -> Bool {
                    let sourceRow = base + sourceRowIndex * sw * 4
                    if skipX {
                        Premultiplied.loadRow(sourceRow, count: sw, into: target)
                        return false
                    }
                    let lo = xTable.firstInput, end = xTable.endInput
                    if let fixed = xFixed, let pairs, PixelPairs.areOpaque(sourceRow + lo * 4, count: end - lo) {
                        _ = PixelPairs.load(sourceRow, from: lo, to: end, into: pairs)
                        fixed.convolve(pairs, table: xTable, into: target)
                        return true
                    }
                    if let xPremultiplied, let premultipliedPairs {
                        return xPremultiplied.filter(
                            level: level, sourceRow, width: sw, table: xTable, pairs: premultipliedPairs, into: target)
                    }
                    Premultiplied.loadRow(sourceRow + lo * 4, count: end - lo, into: line + lo)
                    xTable.convolve(line, into: target)
                    return false
                }
                forEachChunk(dh, threads: threads) { chunk in
                    // Output rows whose source rows are all opaque, from the top until the
                    // first that is not, in fixed point; the rest (all of them when a
                    // table does not fit) below.
                    var first = chunk.lowerBound
                    if let xFixed, let yFixed {
                        first = Self.resampleOpaque(
                            chunk, of: base, width: sw, xTable: xTable, xFixed: xFixed, yTable: yTable, yFixed: yFixed,
                            into: outBase, width: dw, level: level, cancellation: cancellation)
                    }
                    let rows = first..<chunk.upperBound
                    if rows.isEmpty { return }
                    let xPremultiplied = premultiplies ? PremultipliedKernel(xTable) : nil
                    // Rows with transparency in fixed point in both passes too, when the
                    // premultiplied horizontal values fit the vertical pass's Int16.
                    // (Only where opaque rows would take `OpaqueRows` too, so that opaque images
                    // never come this way, and their pixels are the same with every kernel set.)
                    let yPremultiplied =
                        !skipY && fitsInt16 && (xPremultiplied?.fitsInt16 ?? false) ? (yFixed ?? OpaqueRows(yTable)) : nil
                    if let xPremultiplied, let yPremultiplied {
                        Self.resamplePremultiplied(
                            rows, of: base, width: sw, xTable: xTable, xKernel: xPremultiplied, yTable: yTable,
                            yWeights: yPremultiplied, into: outBase, width: dw, level: level, cancellation: cancellation)
                        return
                    }
                    // Zero beyond what rows load into them: the grouped convolutions read up to
                    // `xTable.stride` values past an output's first input.
                    let lineCount = sw + xTable.stride
                    let line = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: lineCount)
                    line.initialize(repeating: .zero, count: lineCount)
                    defer { line.deallocate() }
                    var pairs: UnsafeMutablePointer<SIMD8<Int16>>? = nil
                    if xFixed != nil {
                        pairs = .allocate(capacity: lineCount)
                        pairs?.initialize(repeating: .zero, count: lineCount)
                    }
                    defer { pairs?.deallocate() }
                    var premultipliedPairs: UnsafeMutablePointer<Int16>? = nil
                    if xPremultiplied != nil {
                        let count = PremultipliedKernel.pairCount(width: sw)
                        premultipliedPairs = .allocate(capacity: count)
                        premultipliedPairs?.initialize(repeating: 0, count: count)
                    }
                    defer { premultipliedPairs?.deallocate() }
                    if skipY {
                        let row = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: dw)
                        defer { row.deallocate() }
                        for y in rows {
                            if cancellation?.isCancelled == true { return }
                            let opaque = filterRow(
                                y, xPremultiplied: xPremultiplied, into: row, line: line, pairs: pairs,
                                premultipliedPairs: premultipliedPairs)
                            Premultiplied.storeRow(row, count: dw, into: outBase + y * dw * 4, opaque: opaque)
                        }
                        return
                    }
                    // Streaming: the filtered rows an output row reads (at most `yTable.stride`
                    // consecutive source rows) are kept in a ring, source row r in slot
                    // r % capacity; rows ringStart..<ringEnd are valid. The windows move down,
                    // so each source row is filtered once and no intermediate image of the
                    // whole source height is ever allocated.
                    let capacity = yTable.stride
                    let ring = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: capacity * dw)
                    defer { ring.deallocate() }
                    let taps = UnsafeMutablePointer<UnsafePointer<SIMD4<Float>>>.allocate(capacity: capacity)
                    defer { taps.deallocate() }
                    // Whether each slot's row went the fixed-point way (see `filterRow`).
                    var slotOpaque = [Bool](repeating: false, count: capacity)
                    var ringStart = 0, ringEnd = 0
                    yTable.weights.withUnsafeBufferPointer { w in
                        for y in rows {
                            if cancellation?.isCancelled == true { return }
                            let start = yTable.starts[y]
                            let count = yTable.counts[y]
                            if start < ringStart || start > ringEnd { (ringStart, ringEnd) = (start, start) }
                            while ringEnd < start + count {
                                slotOpaque[ringEnd % capacity] = filterRow(
                                    ringEnd, xPremultiplied: xPremultiplied, into: ring + (ringEnd % capacity) * dw, line: line,
                                    pairs: pairs, premultipliedPairs: premultipliedPairs)
                                ringEnd += 1
                                ringStart = max(ringStart, ringEnd - capacity)
                            }
                            var opaque = true
                            for k in 0..<count {
                                taps[k] = UnsafePointer(ring + ((start + k) % capacity) * dw)
                                opaque = opaque && slotOpaque[(start + k) % capacity]
                            }
                            let weights = w.baseAddress! + y * yTable.stride
                            let target = outBase + y * dw * 4
                            // Four pixels at a time, for the same reason as in `convolve`.
                            var x = 0
                            while x + 8 <= dw {
                                var a0 = SIMD4<Float>.zero, a1 = SIMD4<Float>.zero, a2 = SIMD4<Float>.zero, a3 = SIMD4<Float>.zero
                                var a4 = SIMD4<Float>.zero, a5 = SIMD4<Float>.zero, a6 = SIMD4<Float>.zero, a7 = SIMD4<Float>.zero
                                for k in 0..<count {
                                    let row = taps[k] + x, weight = weights[k]
                                    a0 += row[0] * weight
                                    a1 += row[1] * weight
                                    a2 += row[2] * weight
                                    a3 += row[3] * weight
                                    a4 += row[4] * weight
                                    a5 += row[5] * weight
                                    a6 += row[6] * weight
                                    a7 += row[7] * weight
                                }
                                Premultiplied.store(a0, target, x, opaque: opaque)
                                Premultiplied.store(a1, target, x + 1, opaque: opaque)
                                Premultiplied.store(a2, target, x + 2, opaque: opaque)
                                Premultiplied.store(a3, target, x + 3, opaque: opaque)
                                Premultiplied.store(a4, target, x + 4, opaque: opaque)
                                Premultiplied.store(a5, target, x + 5, opaque: opaque)
                                Premultiplied.store(a6, target, x + 6, opaque: opaque)
                                Premultiplied.store(a7, target, x + 7, opaque: opaque)
                                x += 8
                            }
                            while x + 4 <= dw {
                                var a0 = SIMD4<Float>.zero, a1 = SIMD4<Float>.zero, a2 = SIMD4<Float>.zero, a3 = SIMD4<Float>.zero
                                for k in 0..<count {
                                    let row = taps[k] + x, weight = weights[k]
                                    a0 += row[0] * weight
                                    a1 += row[1] * weight
                                    a2 += row[2] * weight
                                    a3 += row[3] * weight
                                }
                                Premultiplied.store(a0, target, x, opaque: opaque)
                                Premultiplied.store(a1, target, x + 1, opaque: opaque)
                                Premultiplied.store(a2, target, x + 2, opaque: opaque)
                                Premultiplied.store(a3, target, x + 3, opaque: opaque)
                                x += 4
                            }
                            while x < dw {
                                var acc = SIMD4<Float>.zero
                                for k in 0..<count { acc += taps[k][x] * weights[k] }
                                Premultiplied.store(acc, target, x, opaque: opaque)
                                x += 1
                            }
                        }
                    }
                }
                // Cancelled: the rows not made are zero, not uninitialised memory.
                if cancellation?.isCancelled == true { out.update(repeating: 0) }
            }
        }
    }

    /// Output rows `rows` in 16-bit fixed point in both passes (``FixedPointKernel`` into a ring
    /// of ``OpaqueRows`` values), streaming as `resample` does, as long as every source row
    /// they read is opaque. Returns the first output row it did not make (`rows.upperBound`
    /// when it made them all): that row reads a source row with transparency. `level`: the
    /// ``WideKernels`` set to run them on, 0 for the portable passes (same pixels).
    private static func resampleOpaque(
        _ rows: Range<Int>, of base: UnsafePointer<UInt8>, width sw: Int, xTable: KernelTable, xFixed: FixedPointKernel,
        yTable: KernelTable, yFixed: OpaqueRows, into outBase: UnsafeMutablePointer<UInt8>, width dw: Int,
        level: Int32, cancellation: WorkCancellation?
    ) -> Int {
        let wide = level > 0
        let lo = xTable.firstInput, end = xTable.endInput
        // Images with transparency near the top give up here, before allocating.
        guard let y0 = rows.first, PixelPairs.areOpaque(base + (yTable.starts[y0] * sw + lo) * 4, count: end - lo) else {
            return rows.lowerBound
        }
        if level == 4 {
            return resampleOpaqueRowPairs(
                rows, of: base, width: sw, xTable: xTable, xFixed: xFixed, yTable: yTable, yFixed: yFixed, into: outBase,
                width: dw, level: level, cancellation: cancellation)
        }
        // Zero past the loaded span, as in `resample`.
        let lineCount = wide ? 0 : sw + xTable.stride
        let pairs = UnsafeMutablePointer<SIMD8<Int16>>.allocate(capacity: lineCount)
        pairs.initialize(repeating: .zero, count: lineCount)
        defer { pairs.deallocate() }
        // Where the wide kernels copy a row's last pixels, zero-padded, for windows that end near it.
        let scratchCount = wide ? WideKernels.scratchCount(width: sw) : 0
        let scratch = UnsafeMutablePointer<Int16>.allocate(capacity: scratchCount)
        scratch.initialize(repeating: 0, count: scratchCount)
        defer { scratch.deallocate() }
        let capacity = yTable.stride
        let ring = UnsafeMutablePointer<SIMD4<Int16>>.allocate(capacity: capacity * dw)
        defer { ring.deallocate() }
        // One more than the taps: an odd count's last pair reads a row with weight zero.
        let taps = UnsafeMutablePointer<UnsafePointer<SIMD4<Int16>>>.allocate(capacity: capacity + 1)
        defer { taps.deallocate() }
        // The same rows as the C kernels take them.
        let wideTaps = UnsafeMutablePointer<UnsafePointer<Int16>?>.allocate(capacity: capacity + 1)
        defer { wideTaps.deallocate() }
        var ringStart = 0, ringEnd = 0
        for y in rows {
            // Cancelled: the rest is left undone (reported as done, so nothing else runs).
            if cancellation?.isCancelled == true { return rows.upperBound }
            let start = yTable.starts[y]
            let count = yTable.counts[y]
            if start < ringStart || start > ringEnd { (ringStart, ringEnd) = (start, start) }
            while ringEnd < start + count {
                let sourceRow = base + ringEnd * sw * 4
                // The opacity of the row's span is found while the row is read for the pass;
                // a row with transparency ends this path (its slot's values are not used).
                if level == 4 && ringEnd + 1 < min(start + capacity, yTable.endInput) {
                    // Two rows at once (each weight load serves both); the second may be one a
                    // later output needs first (its slot is free: the ring holds `capacity`).
                    let next = ringEnd + 2 < yTable.endInput ? UnsafePointer(sourceRow + 2 * sw * 4) : nil
                    if WideKernels.horizontalPair(
                        level: level, sourceRow, UnsafePointer(sourceRow + sw * 4), width: sw, table: xTable, kernel: xFixed,
                        scratch: scratch, into: ring + (ringEnd % capacity) * dw, ring + ((ringEnd + 1) % capacity) * dw, next: next)
                    {
                        ringEnd += 2
                        ringStart = max(ringStart, ringEnd - capacity)
                        continue
                    }
                    // One of them has transparency: this output ends here if it needs both, else
                    // the first is taken alone below (and the second found out when needed).
                    if ringEnd + 1 < start + count { return y }
                }
                if wide {
                    // The row after it is read next (or soon after), unless it is past the table's.
                    let next = ringEnd + 1 < yTable.endInput ? UnsafePointer(sourceRow + sw * 4) : nil
                    guard WideKernels.horizontal(
                        level: level, sourceRow, width: sw, table: xTable, kernel: xFixed, scratch: scratch,
                        into: ring + (ringEnd % capacity) * dw, next: next)
                    else { return y }
                } else {
                    guard PixelPairs.load(sourceRow, from: lo, to: end, into: pairs) else { return y }
                    xFixed.convolve(pairs, table: xTable, into: ring + (ringEnd % capacity) * dw)
                }
                ringEnd += 1
                ringStart = max(ringStart, ringEnd - capacity)
            }
            for k in 0..<count { taps[k] = UnsafePointer(ring + ((start + k) % capacity) * dw) }
            taps[count] = taps[count - 1]
            if wide {
                for k in 0...count { wideTaps[k] = UnsafeRawPointer(taps[k]).assumingMemoryBound(to: Int16.self) }
                WideKernels.vertical(level: level, wideTaps, count: count, weights: yFixed, output: y, width: dw, into: outBase + y * dw * 4)
            } else {
                yFixed.filter(taps, count: count, output: y, width: dw, into: outBase + y * dw * 4)
            }
        }
        return rows.upperBound
    }

    /// Output rows `rows` from source rows that may have transparency, in fixed point in both
    /// passes: `PremultipliedKernel` horizontally into a ring of ``OpaqueRows`` values, then
    /// the vertical weights and one division by alpha per pixel, streaming as `resample` does.
    private static func resamplePremultiplied(
        _ rows: Range<Int>, of base: UnsafePointer<UInt8>, width sw: Int, xTable: KernelTable, xKernel: PremultipliedKernel,
        yTable: KernelTable, yWeights: OpaqueRows, into outBase: UnsafeMutablePointer<UInt8>, width dw: Int,
        level: Int32, cancellation: WorkCancellation?
    ) {
        let pairCount = PremultipliedKernel.pairCount(width: sw)
        let pairs = UnsafeMutablePointer<Int16>.allocate(capacity: pairCount)
        pairs.initialize(repeating: 0, count: pairCount)
        defer { pairs.deallocate() }
        let capacity = yTable.stride
        let ring = UnsafeMutablePointer<SIMD4<Int16>>.allocate(capacity: capacity * dw)
        defer { ring.deallocate() }
        // One more than the taps: an odd count's last pair reads a row with weight zero.
        let taps = UnsafeMutablePointer<UnsafePointer<Int16>?>.allocate(capacity: capacity + 1)
        defer { taps.deallocate() }
        var ringStart = 0, ringEnd = 0
        for y in rows {
            if cancellation?.isCancelled == true { return }
            let start = yTable.starts[y]
            let count = yTable.counts[y]
            if start < ringStart || start > ringEnd { (ringStart, ringEnd) = (start, start) }
            while ringEnd < start + count {
                let sourceRow = base + ringEnd * sw * 4
                if level == 4 && ringEnd + 1 < min(start + capacity, yTable.endInput) {
                    // Two rows at once, as in `resampleOpaque` (the second's slot is free).
                    xKernel.filter16Pair(
                        level: level, sourceRow, UnsafePointer(sourceRow + sw * 4), width: sw, table: xTable, pairs: pairs,
                        into: ring + (ringEnd % capacity) * dw, ring + ((ringEnd + 1) % capacity) * dw,
                        next: ringEnd + 2 < yTable.endInput ? UnsafePointer(sourceRow + 2 * sw * 4) : nil)
                    ringEnd += 2
                    ringStart = max(ringStart, ringEnd - capacity)
                    continue
                }
                _ = xKernel.filter16(
                    level: level, sourceRow, width: sw, table: xTable, pairs: pairs, into: ring + (ringEnd % capacity) * dw,
                    next: ringEnd + 1 < yTable.endInput ? UnsafePointer(sourceRow + sw * 4) : nil)
                ringEnd += 1
                ringStart = max(ringStart, ringEnd - capacity)
            }
            for k in 0..<count {
                taps[k] = UnsafeRawPointer(ring + ((start + k) % capacity) * dw).assumingMemoryBound(to: Int16.self)
            }
            taps[count] = taps[count - 1]
            PremultipliedKernel.resampleVertical(
                level: level, taps, count: count, weights: yWeights, output: y, width: dw, into: outBase + y * dw * 4)
        }
    }

    /// The region clipped to the image; the whole image when `nil` or empty after clipping.
    static func clip(_ region: ResampleRegion?, width: Int, height: Int) -> ResampleRegion {
        let full = ResampleRegion(x: 0, y: 0, width: Double(width), height: Double(height))
        guard let r = region, r.x.isFinite, r.y.isFinite, r.width.isFinite, r.height.isFinite else { return full }
        let x0 = max(0, min(r.x, Double(width)))
        let y0 = max(0, min(r.y, Double(height)))
        let x1 = max(x0, min(r.x + r.width, Double(width)))
        let y1 = max(y0, min(r.y + r.height, Double(height)))
        guard x1 - x0 > 0, y1 - y0 > 0 else { return full }
        return ResampleRegion(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }
}

/// Runs `body` over `0..<count` split into at most `threads` contiguous chunks, in parallel when
/// `threads > 1`. Returns when every chunk is done.
func forEachChunk(_ count: Int, threads: Int, _ body: (Range<Int>) -> Void) {
    let n = min(max(1, threads), count)
    if n <= 1 {
        body(0..<count)
        return
    }
    // `body` writes only the disjoint rows of its chunk, and `concurrentPerform` returns after
    // every iteration has finished, so sharing the non-escaping closure is race-free.
    nonisolated(unsafe) let work = body
    DispatchQueue.concurrentPerform(iterations: n) { i in
        work((count * i / n)..<(count * (i + 1) / n))
    }
}

/// The precomputed weights of a one-dimensional resampling: for each output index, the first
/// input index, the number of inputs and their normalised weights.
struct KernelTable {
    let starts: [Int]
    let counts: [Int]
    /// `stride` weights per output index (only the first `counts[i]` are used).
    let weights: [Float]
    let stride: Int
    /// The lowest input index any output reads.
    let firstInput: Int
    /// One past the highest input index any output reads.
    let endInput: Int
    /// The largest weight's magnitude (the fixed-point forms' precision follows from it).
    let largestWeight: Float

    /// Weights for mapping `length` input pixels starting at `start` (of `inSize`) onto
    /// `outSize` outputs, with Pillow's conventions (pixel centres at +0.5).
    init(filter: ResizeFilter, inSize: Int, outSize: Int, start: Double, length: Double) {
        let scale = length / Double(outSize)
        let filterScale = filter.stretchesWhenShrinking ? max(scale, 1) : 1
        let support = filter.support * filterScale
        let inverse = 1 / filterScale
        let stride = max(1, Int((support * 2 + 2).rounded(.up)))
        var starts = [Int](repeating: 0, count: outSize)
        var counts = [Int](repeating: 0, count: outSize)
        var weights = [Float](repeating: 0, count: outSize * stride)
        var lowest = inSize
        var highest = 0
        var largest: Float = 0
        var row = [Double](repeating: 0, count: stride)
        let lanczosSteps = Lanczos3Sines.Steps(step: inverse)
        for i in 0..<outSize {
            let center = start + (Double(i) + 0.5) * scale
            var lo = max(0, Int((center - support + 0.5).rounded(.down)))
            var hi = min(inSize, Int((center + support + 0.5).rounded(.down)))
            hi = min(hi, lo + stride)
            var total = 0.0
            var n = 0
            if lo < hi && filter == .lanczos3 {
                // The taps are evenly spaced, so their sines follow a recurrence: two sine
                // calls per run of up to 16 taps instead of two per tap (the table was a
                // tenth of a small resize's time).
                var x = lo
                while x < hi {
                    let runEnd = min(hi, x + 16)
                    var sines = Lanczos3Sines(at: (Double(x) - center + 0.5) * inverse, next: (Double(x + 1) - center + 0.5) * inverse, steps: lanczosSteps)
                    while x < runEnd {
                        let w = ResizeFilter.lanczos3((Double(x) - center + 0.5) * inverse, sines.current)
                        sines.advance()
                        row[n] = w
                        total += w
                        n += 1
                        x += 1
                    }
                }
            } else if lo < hi {
                for x in lo..<hi {
                    let w = filter.weight((Double(x) - center + 0.5) * inverse)
                    row[n] = w
                    total += w
                    n += 1
                }
            }
            // Trim zero weights at both ends (the box filter has many).
            var first = 0
            while first < n && row[first] == 0 { first += 1 }
            var last = n
            while last > first && row[last - 1] == 0 { last -= 1 }
            if first == last || total == 0 {
                // Degenerate (cannot happen for sane inputs): nearest pixel.
                lo = min(max(0, Int(center)), inSize - 1)
                starts[i] = lo
                counts[i] = 1
                weights[i * stride] = 1
                largest = max(largest, 1)
            } else {
                starts[i] = lo + first
                counts[i] = last - first
                for k in first..<last {
                    let w = Float(row[k] / total)
                    weights[i * stride + k - first] = w
                    largest = max(largest, abs(w))
                }
            }
            lowest = min(lowest, starts[i])
            highest = max(highest, starts[i] + counts[i])
        }
        self.starts = starts
        self.counts = counts
        self.weights = weights
        self.stride = stride
        self.firstInput = lowest
        self.endInput = max(highest, lowest + 1)
        self.largestWeight = largest
    }

    /// Convolves one row of premultiplied input (indexed by input position) into `output`.
    @inline(__always)
    func convolve(_ input: UnsafePointer<SIMD4<Float>>, into output: UnsafeMutablePointer<SIMD4<Float>>) {
        weights.withUnsafeBufferPointer { w in
            starts.withUnsafeBufferPointer { s in
                counts.withUnsafeBufferPointer { c in
                    // Four outputs at a time: four independent sums keep the adds from
                    // waiting on each other. Each still adds its own taps in order; the
                    // shorter ones run on over zero weights (the table is zero past `counts`,
                    // the row zero past the loaded span), adding exact zeros.
                    let n = s.count
                    var i = 0
                    while i + 4 <= n {
                        let f0 = input + s[i], f1 = input + s[i + 1], f2 = input + s[i + 2], f3 = input + s[i + 3]
                        let w0 = w.baseAddress! + i * stride
                        let w1 = w0 + stride, w2 = w1 + stride, w3 = w2 + stride
                        let m = max(max(c[i], c[i + 1]), max(c[i + 2], c[i + 3]))
                        var a0 = SIMD4<Float>.zero, a1 = SIMD4<Float>.zero, a2 = SIMD4<Float>.zero, a3 = SIMD4<Float>.zero
                        for k in 0..<m {
                            a0 += f0[k] * w0[k]
                            a1 += f1[k] * w1[k]
                            a2 += f2[k] * w2[k]
                            a3 += f3[k] * w3[k]
                        }
                        output[i] = a0
                        output[i + 1] = a1
                        output[i + 2] = a2
                        output[i + 3] = a3
                        i += 4
                    }
                    while i < n {
                        var acc = SIMD4<Float>.zero
                        let from = input + s[i]
                        let base = i * stride
                        for k in 0..<c[i] { acc += from[k] * w[base + k] }
                        output[i] = acc
                        i += 1
                    }
                }
            }
        }
    }
}

extension PixelBuffer {
    /// Resamples the whole buffer to `size` with `filter` (default Lanczos3), premultiplied so
    /// transparent pixels do not darken edges. Returns `self` when the size is unchanged.
    ///
    /// This is the high-quality counterpart of ``downscaled(to:)`` for finishing thumbnails
    /// after a shrink-on-load decode. Sizes below 1 are treated as 1.
    public func resized(to size: PixelSize, filter: ResizeFilter = .lanczos3) -> PixelBuffer {
        Resampler(filter: filter).resample(self, to: size)
    }
}
