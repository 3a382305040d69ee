/// The fast path for matrix/TRC sources (G-4): per-channel table to linear light in 1.14
/// fixed point (as LittleCMS's own 8-bit matrix/shaper optimisation), a 3×3 fixed-point matrix
/// from the source's primaries to sRGB's (both in the D50 PCS, relative colorimetric, as
/// LittleCMS joins two matrix/TRC profiles), and a table back to 8-bit sRGB.
///
/// The first two steps are folded into one table per channel of each 8-bit value's
/// contribution to the three outputs (a `SIMD4<Int32>`: the linear value times the matrix
/// column). The table back to 8 bits covers every value the matrix can produce from inputs in
/// 0…1, out-of-gamut ones included, with the clamp to 0…1 written into its entries; so a pixel
/// costs three table loads, two vector additions, a shift and three byte loads — no multiply,
/// no comparison. Alpha is copied (pixels are straight alpha, so colour channels convert on
/// their own).
///
/// A value of plain arrays: built once per profile, shared read-only by every thread.
struct MatrixShaperTransform: Sendable {
    /// Fixed-point scale of linear values and matrix coefficients: 1.0 = 16384.
    static let one: Int32 = 1 << 14

    /// Per channel and 8-bit value, its contribution to linear sRGB red, green and blue in
    /// 2.28 fixed point (`linear input × matrix column`; the rounding half is in the red
    /// table): 3 × 256 entries.
    let contributions: [SIMD4<Int32>]
    /// 8-bit sRGB for each linear value `lowest…highest` (1.14 fixed point), the values
    /// outside 0…16384 giving the clamped ones.
    let output: [UInt8]
    /// The least linear value the matrix can produce: the index of `output`'s first entry.
    let lowest: Int32

    /// - Parameters:
    ///   - curves: each channel's tone curve sampled at the 256 8-bit inputs (0…1 out).
    ///   - matrix: source linear RGB → sRGB linear RGB; the magnitudes of each row's
    ///     coefficients sum to at most ``ColorTransform/maxRowMagnitude`` (checked by the caller),
    ///     so no sum overflows `Int32` and the output table stays under 250,000 entries.
    init(curves: [[Double]], matrix: Matrix3) {
        let one = Double(Self.one)
        var input = [Int32](repeating: 0, count: 3 * 256)
        for channel in 0..<3 {
            for value in 0..<256 {
                input[channel * 256 + value] = Int32((min(max(curves[channel][value], 0), 1) * one).rounded())
            }
        }
        let fixed = matrix.m.map { Int32(($0 * one).rounded()) }
        var contributions: [SIMD4<Int32>] = []
        contributions.reserveCapacity(3 * 256)
        for channel in 0..<3 {
            let column = SIMD4<Int32>(fixed[channel], fixed[3 + channel], fixed[6 + channel], 0)
            let rounding = channel == 0 ? SIMD4<Int32>(repeating: 1 << 13) : SIMD4<Int32>(repeating: 0)
            for value in 0..<256 {
                contributions.append(column &* SIMD4<Int32>(repeating: input[channel * 256 + value]) &+ rounding)
            }
        }
        self.contributions = contributions
        // The range of `sum >> 14` over all inputs 0…16384: each row's negative coefficients
        // at full input give its least value, its positive ones its greatest.
        var lowest: Int32 = 0
        var highest = Self.one
        for row in 0..<3 {
            var least: Int32 = 1 << 13
            var most: Int32 = 1 << 13
            for column in 0..<3 {
                let coefficient = fixed[row * 3 + column]
                least += min(coefficient, 0) * Self.one
                most += max(coefficient, 0) * Self.one
            }
            lowest = min(lowest, least >> 14)
            highest = max(highest, most >> 14)
        }
        self.lowest = lowest
        let top = Self.one
        self.output = (lowest...highest).map { v in
            UInt8((TransferCurve.encodeSRGB(Double(min(max(v, 0), top)) / one) * 255).rounded())
        }
    }

    /// Converts `count` RGBA8 pixels from `source` into `destination` (which may be the same:
    /// each pixel is read whole before it is written). One 32-bit load and store per pixel
    /// (little-endian, as on every platform the library builds for).
    func apply(_ source: UnsafePointer<UInt8>, _ destination: UnsafeMutablePointer<UInt8>, count: Int) {
        contributions.withUnsafeBufferPointer { table in
            output.withUnsafeBufferPointer { out in
                let c = table.baseAddress!
                // Indexed by the linear value itself, which `init` proved is within
                // `lowest…highest` for every input.
                let o = out.baseAddress! - Int(lowest)
                let src = UnsafeRawPointer(source)
                let dst = UnsafeMutableRawPointer(destination)
                for i in 0..<count {
                    let p = i &* 4
                    let pixel = src.loadUnaligned(fromByteOffset: p, as: UInt32.self)
                    let sum = c[Int(pixel & 0xFF)] &+ c[256 &+ Int((pixel >> 8) & 0xFF)] &+ c[512 &+ Int((pixel >> 16) & 0xFF)]
                    let v = sum &>> 14
                    let word = UInt32(o[Int(v[0])]) | UInt32(o[Int(v[1])]) << 8 | UInt32(o[Int(v[2])]) << 16
                    dst.storeBytes(of: word | (pixel & 0xFF00_0000), toByteOffset: p, as: UInt32.self)
                }
            }
        }
    }
}
