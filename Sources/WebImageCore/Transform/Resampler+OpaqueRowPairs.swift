import CResampleKernels

extension Resampler {
    /// `resampleOpaque` on the AVX-512 VNNI set (level 4): the horizontal pass four source rows
    /// at a time (`wi_resample_horizontal_rows4`: one channel of four rows per block, so each
    /// weight load serves twelve multiply-adds and alpha, 255 throughout, is not computed), into
    /// a ring of *pair rows* (rows `2p` and `2p + 1` side by side), and the vertical pass two
    /// rows per multiply-add entry (`wi_resample_vertical_pairs`). The sums are the same exact
    /// integers as the other kernel sets', so the pixels are the same. Returns the first output
    /// row it did not make, as `resampleOpaque` does: the first whose window holds a row with
    /// transparency.
    static func resampleOpaqueRowPairs(
        _ rows: Range<Int>, of base: UnsafePointer<UInt8>, width sw: Int, xTable: KernelTable, xFixed: FixedPointKernel,
        yTable: KernelTable, yFixed: OpaqueRows, into outBase: UnsafeMutablePointer<UInt8>, width dw: Int,
        level: Int32, cancellation: WorkCancellation?
    ) -> Int {
        // The pairs of two neighbouring outputs' windows, and up to two filled ahead of them
        // (four rows a step).
        var widest = (yTable.stride + 1) / 2
        for y in rows.dropLast() {
            let first = min(yTable.starts[y], yTable.starts[y + 1])
            let end = max(yTable.starts[y] + yTable.counts[y], yTable.starts[y + 1] + yTable.counts[y + 1])
            widest = max(widest, (end - 1) / 2 - first / 2 + 1)
        }
        let capacity = widest + 3
        let pairValues = dw * 6
        let ring = UnsafeMutablePointer<Int16>.allocate(capacity: capacity * pairValues)
        defer { ring.deallocate() }
        // Per ring slot: which of its two rows were opaque over the span (bits 0 and 1).
        var opaqueRows = [UInt8](repeating: 0, count: capacity)
        let scratchCount = xFixed.plan.withUnsafeBufferPointer { wi_resample_rows4_scratch_count($0.baseAddress) }
        let scratch = UnsafeMutablePointer<Int16>.allocate(capacity: scratchCount)
        defer { scratch.deallocate() }
        let pairs = UnsafeMutablePointer<UnsafePointer<Int16>?>.allocate(capacity: capacity)
        defer { pairs.deallocate() }
        let pairWeights = UnsafeMutablePointer<Int32>.allocate(capacity: 2 * capacity)
        defer { pairWeights.deallocate() }
        let sources = UnsafeMutablePointer<UnsafePointer<UInt8>?>.allocate(capacity: 8)
        defer { sources.deallocate() }
        let shift = Int32(xFixed.precision - OpaqueRows.fraction)
        let verticalShift = Int32(yFixed.precision + OpaqueRows.fraction)
        let offset = Int32(128 << OpaqueRows.fraction)
        let last = yTable.endInput - 1
        /// Source row `r`, or the table's last when `r` is past it (filtered, never used).
        func sourceRow(_ r: Int) -> UnsafePointer<UInt8> { base + min(r, last) * sw * 4 }
        var pairStart = 0, pairEnd = 0
        return xTable.starts.withUnsafeBufferPointer { starts in
            xTable.counts.withUnsafeBufferPointer { counts in
                xFixed.packedTaps.withUnsafeBufferPointer { taps in
                    xFixed.plan.withUnsafeBufferPointer { plan in
                        yFixed.weights.withUnsafeBufferPointer { steps in
                            UnsafeRawPointer(steps.baseAddress!).withMemoryRebound(
                                to: Int16.self, capacity: steps.count * 8
                            ) { yWeights in
                                /// Whether every row of output `y`'s window is opaque.
                                func opaque(_ y: Int) -> Bool {
                                    for r in yTable.starts[y]..<yTable.starts[y] + yTable.counts[y]
                                    where opaqueRows[(r >> 1) % capacity] & (1 << (r & 1)) == 0 {
                                        return false
                                    }
                                    return true
                                }
                                /// Output `y`'s weights of rows `2p` and `2p + 1` (zero outside its window)
                                /// as the kernels take them.
                                func pairWeight(_ y: Int, _ p: Int) -> Int32 {
                                    let start = yTable.starts[y], count = yTable.counts[y]
                                    let w = yWeights + y * yFixed.pairStride * 8
                                    func weight(_ k: Int) -> UInt16 {
                                        k >= 0 && k < count ? UInt16(bitPattern: w[k / 2 * 8 + k % 2]) : 0
                                    }
                                    return Int32(bitPattern: UInt32(weight(2 * p - start)) | UInt32(weight(2 * p + 1 - start)) << 16)
                                }
                                // Output rows two at a time where both windows are opaque (the vertical
                                // pass loads each pair row once for both), else one.
                                var y = rows.lowerBound
                                while y < rows.upperBound {
                                    if cancellation?.isCancelled == true { return rows.upperBound }
                                    let lastY = min(y + 1, rows.upperBound - 1)
                                    let s0 = yTable.starts[y], e0 = s0 + yTable.counts[y]
                                    let s1 = yTable.starts[lastY], e1 = s1 + yTable.counts[lastY]
                                    // The pairs of both windows (of y alone when lastY is y).
                                    let p0 = min(s0, s1) >> 1, p1 = (max(e0, e1) - 1) >> 1
                                    if p0 < pairStart || p0 > pairEnd { (pairStart, pairEnd) = (p0, p0) }
                                    while pairEnd <= p1 {
                                        // These four rows, then the four after them (prefetched).
                                        let r = 2 * pairEnd
                                        for k in 0..<8 { sources[k] = sourceRow(r + k) }
                                        let slot0 = pairEnd % capacity, slot1 = (pairEnd + 1) % capacity
                                        let mask = wi_resample_horizontal_rows4(
                                            level, sources, sw, starts.count, starts.baseAddress, counts.baseAddress,
                                            plan.baseAddress, taps.baseAddress, xFixed.packedBlockStride, shift, offset, scratch,
                                            ring + slot0 * pairValues, ring + slot1 * pairValues, r + 4 <= last ? sources + 4 : nil)
                                        opaqueRows[slot0] = UInt8(mask & 3)
                                        opaqueRows[slot1] = UInt8((mask >> 2) & 3)
                                        pairEnd += 2
                                        pairStart = max(pairStart, pairEnd - capacity)
                                    }
                                    // A window with a row with transparency ends this path: that output
                                    // and the rows after it are left to the premultiplied passes.
                                    guard opaque(y) else { return y }
                                    let two = lastY > y && opaque(lastY)
                                    let first = two ? p0 : s0 >> 1
                                    let pairCount = (two ? p1 : (e0 - 1) >> 1) - first + 1
                                    for q in 0..<pairCount {
                                        pairs[q] = UnsafePointer(ring + ((first + q) % capacity) * pairValues)
                                        pairWeights[q] = pairWeight(y, first + q)
                                        if two { pairWeights[capacity + q] = pairWeight(lastY, first + q) }
                                    }
                                    if two {
                                        wi_resample_vertical_pairs2(
                                            level, pairs, pairWeights, pairWeights + capacity, pairCount, dw, verticalShift,
                                            outBase + y * dw * 4, outBase + lastY * dw * 4)
                                        y += 2
                                    } else {
                                        wi_resample_vertical_pairs(
                                            level, pairs, pairWeights, pairCount, dw, verticalShift, outBase + y * dw * 4)
                                        y += 1
                                    }
                                }
                                return rows.upperBound
                            }
                        }
                    }
                }
            }
        }
    }
}
