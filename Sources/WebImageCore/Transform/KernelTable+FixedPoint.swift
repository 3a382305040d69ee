/// The fixed-point forms of a ``KernelTable``'s weights, shared by the horizontal
/// (``FixedPointKernel``) and vertical (``OpaqueRows``) passes for opaque rows.
extension KernelTable {
    /// The most fractional bits (at most `limit`) that keep every weight within `Int16`, or
    /// `nil` when that leaves fewer than 12 (too coarse to stay within one level of the `Float`
    /// path) or the table has no usable weight.
    func fixedPointPrecision(limit: Int) -> Int? {
        let largest = largestWeight
        guard largest > 0, largest.isFinite else { return nil }
        var precision = 0
        while precision < limit && (largest * Float(1 << (precision + 1))).rounded() <= 32767 { precision += 1 }
        return precision >= 12 ? precision : nil
    }

    /// Output `output`'s weights in units of `1/one`, into `quantised[0..<counts[output]]`
    /// (and a zero after them, for the pair layout), rounded half away from zero with the
    /// rounding residue on the largest tap so that they sum to exactly `one`.
    /// - Parameters:
    ///   - output: the output index.
    ///   - one: the fixed-point unit (`1 << precision`).
    ///   - quantised: receives the weights; at least `stride + 1` long.
    /// - Returns: the largest weight's magnitude and the sum of the weights' magnitudes, for
    ///   the caller's overflow checks.
    func quantise(output: Int, one: Int, into quantised: inout [Int]) -> (largest: Int, magnitude: Int) {
        let count = counts[output]
        var sum = 0
        var largestTap = 0
        for k in 0..<count {
            // Rounded half away from zero, as `rounded()` (a libm call).
            let v = weights[output * stride + k] * Float(one)
            quantised[k] = Int(v < 0 ? v - 0.5 : v + 0.5)
            sum += quantised[k]
            if abs(quantised[k]) > abs(quantised[largestTap]) { largestTap = k }
        }
        quantised[largestTap] += one - sum
        quantised[count] = 0
        var magnitude = 0
        for k in 0..<count { magnitude += abs(quantised[k]) }
        return (abs(quantised[largestTap]), magnitude)
    }
}
