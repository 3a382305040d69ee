/// Linear RGB to the XYB of SSIMULACRA2: libjxl's opsin absorbance (a 3×3 mix plus a bias),
/// a cube root less the bias's cube root, X = (L − M) / 2, Y = (L + M) / 2, B = S; then the
/// metric's rescaling to about 0…1: X · 14 + 0.42, Y + 0.01, B − Y + 0.55.
enum XYBRows {
    typealias V8 = SIMD8<Float>

    private static let m00: Float = 0.30
    private static let m01: Float = 1 - 0.078 - 0.30
    private static let m02: Float = 0.078
    private static let m10: Float = 0.23
    private static let m11: Float = 1 - 0.078 - 0.23
    private static let m12: Float = 0.078
    private static let m20: Float = 0.243_422_689_245_478_19
    private static let m21: Float = 0.204_767_444_244_968_21
    private static let m22: Float = 1 - 0.243_422_689_245_478_19 - 0.204_767_444_244_968_21
    private static let bias: Float = 0.003_793_073_255_275_449_3
    /// The cube root of the bias (`cbrt(0.0037930732552754493)`).
    private static let biasCubeRoot: Float = 0.155_954_200_549_248_64

    /// Converts `count` pixels (a multiple of 8) of `rows` into the rescaled X, Y and B rows.
    static func convert(
        _ rows: LinearRGBRows, count: Int,
        x: UnsafeMutablePointer<Float>, y: UnsafeMutablePointer<Float>, b: UnsafeMutablePointer<Float>
    ) {
        var i = 0
        while i < count {
            let r = load(rows.r + i)
            let g = load(rows.g + i)
            let bl = load(rows.b + i)
            let l = cubeRoot(positivePart(m00 * r + m01 * g + m02 * bl + bias))
                - biasCubeRoot
            let m = cubeRoot(positivePart(m10 * r + m11 * g + m12 * bl + bias))
                - biasCubeRoot
            let s = cubeRoot(positivePart(m20 * r + m21 * g + m22 * bl + bias))
                - biasCubeRoot
            let yy = 0.5 * (l + m)
            store(0.5 * (l - m) * 14 + 0.42, x + i)
            store(yy + 0.01, y + i)
            store((s - yy) + 0.55, b + i)
            i += 8
        }
    }

    /// The cube root of each lane (lanes are non-negative): an exponent-thirding first guess from
    /// the bits, then two Halley steps (cubic convergence: about 5 % → 10⁻⁴ → float precision).
    @inline(__always)
    static func cubeRoot(_ v: V8) -> V8 {
        let bits = unsafeBitCast(v, to: SIMD8<UInt32>.self)
        // bits / 3 as a sum of shifts (the error, under 1/3 · 4⁻⁸ of bits, is far below the
        // first guess's own), plus the magic constant that re-biases the exponent.
        var third = (bits &>> 2) &+ (bits &>> 4) &+ (bits &>> 6) &+ (bits &>> 8)
        third = third &+ (third &>> 8) &+ (third &>> 16)
        var y = unsafeBitCast(third &+ 709_921_077, to: V8.self)
        var y3 = y * y * y
        y = y * (y3 + v + v) / (y3 + y3 + v)
        y3 = y * y * y
        y = y * (y3 + v + v) / (y3 + y3 + v)
        return y
    }

    /// `max(v, 0)` in each lane, from the bits: a lane whose sign bit is set becomes +0. The
    /// standard library's `pointwiseMax` is a generic lane-by-lane loop, not inlined here (a
    /// third of the metric's time went to it).
    @inline(__always)
    static func positivePart(_ v: V8) -> V8 {
        let bits = unsafeBitCast(v, to: SIMD8<Int32>.self)
        return unsafeBitCast(bits & ~(bits &>> 31), to: V8.self)
    }

    /// `|v|` in each lane: the sign bit cleared.
    @inline(__always)
    static func magnitude(_ v: V8) -> V8 {
        let bits = unsafeBitCast(v, to: SIMD8<UInt32>.self)
        return unsafeBitCast(bits & 0x7FFF_FFFF, to: V8.self)
    }

    @inline(__always)
    static func load(_ p: UnsafePointer<Float>) -> V8 {
        UnsafeRawPointer(p).loadUnaligned(as: V8.self)
    }

    @inline(__always)
    static func load(_ p: UnsafeMutablePointer<Float>) -> V8 {
        UnsafeRawPointer(p).loadUnaligned(as: V8.self)
    }

    @inline(__always)
    static func store(_ v: V8, _ p: UnsafeMutablePointer<Float>) {
        UnsafeMutableRawPointer(p).storeBytes(of: v, as: V8.self)
    }
}
