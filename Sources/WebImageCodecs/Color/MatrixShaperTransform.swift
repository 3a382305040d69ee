/// The fast path for matrix/TRC sources (G-4): per-channel table to linear light in 1.14
/// fixed point, a 3×3 fixed-point matrix from the source's primaries to sRGB's (both in the
/// D50 PCS, relative colorimetric, as LittleCMS joins two matrix/TRC profiles), and a table
/// back to 8-bit sRGB. Alpha is copied (pixels are straight alpha, so colour channels convert
/// on their own).
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
    }

    /// Converts `count` RGBA8 pixels from `source` into `destination` (which may be the same).
    func apply(_ source: UnsafePointer<UInt8>, _ destination: UnsafeMutablePointer<UInt8>, count: Int) {
        input.withUnsafeBufferPointer { lin in
            output.withUnsafeBufferPointer { out in
                let m = (matrix[0], matrix[1], matrix[2], matrix[3], matrix[4], matrix[5], matrix[6], matrix[7], matrix[8])
                let top = Self.one
                let half: Int32 = 1 << 13
                let l = lin.baseAddress!
                let o = out.baseAddress!
                for i in 0..<count {
                    let p = i &* 4
                    let r = l[Int(source[p])]
                    let g = l[256 &+ Int(source[p &+ 1])]
                    let b = l[512 &+ Int(source[p &+ 2])]
                    // |coefficients| sum to under 8 for any real pair of spaces, so
                    // 16384 · 16384 · 8 = 2^31 bounds every sum: no overflow in Int32.
                    let x = (m.0 &* r &+ m.1 &* g &+ m.2 &* b &+ half) >> 14
                    let y = (m.3 &* r &+ m.4 &* g &+ m.5 &* b &+ half) >> 14
                    let z = (m.6 &* r &+ m.7 &* g &+ m.8 &* b &+ half) >> 14
                    destination[p] = o[Int(min(max(x, 0), top))]
                    destination[p &+ 1] = o[Int(min(max(y, 0), top))]
                    destination[p &+ 2] = o[Int(min(max(z, 0), top))]
                    destination[p &+ 3] = source[p &+ 3]
                }
            }
        }
    }
}
