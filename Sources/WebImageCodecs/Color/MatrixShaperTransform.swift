/// The fast path for matrix/TRC sources (G-4): per-channel table to linear light in 1.14
/// fixed point (as LittleCMS's own 8-bit matrix/shaper optimisation), a 3×3 fixed-point matrix
/// from the source's primaries to sRGB's (both in the D50 PCS, relative colorimetric, as
/// LittleCMS joins two matrix/TRC profiles), and a 16385-entry table back to 8-bit sRGB.
/// The first two steps are folded into one table per channel of each 8-bit value's
/// contribution to the three outputs (a `SIMD4<Int32>`: the linear value times the matrix
/// column), so a pixel costs three table loads and two vector additions, no multiply. Alpha is copied (pixels are straight alpha, so colour
/// channels convert on their own).
///
/// A value of plain arrays: built once per profile, shared read-only by every thread.
struct MatrixShaperTransform: Sendable {
    /// Fixed-point scale of linear values and matrix coefficients: 1.0 = 16384.
    static let one: Int32 = 1 << 14

    /// Linear light (0…16384) for each 8-bit input value, per channel: 3 × 256 entries.
    let input: [Int32]
    /// The matrix in 1.14 fixed point, row-major.
    let matrix: [Int32]
    /// 8-bit sRGB for each linear value 0…16384.
    let output: [UInt8]
    /// Per channel and 8-bit value, its contribution to linear sRGB red, green and blue in
    /// 2.28 fixed point (`input × matrix column`; the rounding half is in the red table):
    /// 3 × 256 entries.
    let contributions: [SIMD4<Int32>]

    /// - Parameters:
    ///   - curves: each channel's tone curve sampled at the 256 8-bit inputs (0…1 out).
    ///   - matrix: source linear RGB → sRGB linear RGB.
    init(curves: [[Double]], matrix: Matrix3) {
        let one = Double(Self.one)
        var input = [Int32](repeating: 0, count: 3 * 256)
        for channel in 0..<3 {
            for value in 0..<256 {
                input[channel * 256 + value] = Int32((min(max(curves[channel][value], 0), 1) * one).rounded())
            }
        }
        self.input = input
        self.matrix = matrix.m.map { Int32(($0 * one).rounded()) }
        self.output = (0...Int(Self.one)).map { v in
            UInt8((TransferCurve.encodeSRGB(Double(v) / one) * 255).rounded())
        }
        let fixed = self.matrix
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
    }

    /// Converts `count` RGBA8 pixels from `source` into `destination` (which may be the same:
    /// each pixel is read whole before it is written). One 32-bit load and store per pixel
    /// (little-endian, as on every platform the library builds for).
    func apply(_ source: UnsafePointer<UInt8>, _ destination: UnsafeMutablePointer<UInt8>, count: Int) {
        contributions.withUnsafeBufferPointer { table in
            output.withUnsafeBufferPointer { out in
                let top = Self.one
                let c = table.baseAddress!
                let o = out.baseAddress!
                let src = UnsafeRawPointer(source)
                let dst = UnsafeMutableRawPointer(destination)
                for i in 0..<count {
                    let p = i &* 4
                    let pixel = src.loadUnaligned(fromByteOffset: p, as: UInt32.self)
                    // |coefficients| of a row sum to at most 7.5 (checked when the transform is
                    // built), so 16384 · 16384 · 7.5 < 2^31: no overflow in Int32.
                    let sum = c[Int(pixel & 0xFF)] &+ c[256 &+ Int((pixel >> 8) & 0xFF)] &+ c[512 &+ Int((pixel >> 16) & 0xFF)]
                    let v = sum &>> 14
                    let x = Int(min(max(v[0], 0), top)), y = Int(min(max(v[1], 0), top)), z = Int(min(max(v[2], 0), top))
                    let word = UInt32(o[x]) | UInt32(o[y]) << 8 | UInt32(o[z]) << 16
                    dst.storeBytes(of: word | (pixel & 0xFF00_0000), toByteOffset: p, as: UInt32.self)
                }
            }
        }
    }
}
