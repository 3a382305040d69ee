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
        // Pairs p0…p1 of an output's window, and up to two filled ahead of it (four rows a step).
        let capacity = (yTable.stride + 1) / 2 + 3
        let pairValues = dw * 8
        let ring = UnsafeMutablePointer<Int16>.allocate(capacity: capacity * pairValues)
        defer { ring.deallocate() }
        // Per ring slot: which of its two rows were opaque over the span (bits 0 and 1).
        var opaqueRows = [UInt8](repeating: 0, count: capacity)
        let scratchCount = xFixed.plan.withUnsafeBufferPointer { wi_resample_rows4_scratch_count($0.baseAddress) }
        let scratch = UnsafeMutablePointer<Int16>.allocate(capacity: scratchCount)
        defer { scratch.deallocate() }
        let pairs = UnsafeMutablePointer<UnsafePointer<Int16>?>.allocate(capacity: capacity)
        defer { pairs.deallocate() }
        let pairWeights = UnsafeMutablePointer<Int32>.allocate(capacity: capacity)
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
                                for y in rows {
                                    if cancellation?.isCancelled == true { return rows.upperBound }
                                    let start = yTable.starts[y], count = yTable.counts[y]
                                    let p0 = start >> 1, p1 = (start + count - 1) >> 1
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
                                    // Every row of the window opaque, or this output is left to the
                                    // premultiplied passes (the rows after it too).
                                    for r in start..<start + count where opaqueRows[(r >> 1) % capacity] & (1 << (r & 1)) == 0 {
                                        return y
                                    }
                                    // Pair q holds window rows 2q − odd and 2q + 1 − odd.
                                    let odd = start & 1
                                    let w = yWeights + y * yFixed.pairStride * 8
                                    func weight(_ k: Int) -> UInt16 {
                                        k >= 0 && k < count ? UInt16(bitPattern: w[k / 2 * 8 + k % 2]) : 0
                                    }
                                    let pairCount = p1 - p0 + 1
                                    for q in 0..<pairCount {
                                        pairs[q] = UnsafePointer(ring + ((p0 + q) % capacity) * pairValues)
                                        let a = 2 * q - odd
                                        pairWeights[q] = Int32(bitPattern: UInt32(weight(a)) | UInt32(weight(a + 1)) << 16)
                                    }
                                    wi_resample_vertical_pairs(
                                        level, pairs, pairWeights, pairCount, dw, verticalShift, outBase + y * dw * 4)
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
