/// Conversions between the library's straight-alpha RGBA8 bytes and the premultiplied
/// `SIMD4<Float>` values transformers compute with.
///
/// Premultiplied layout: `(r·a/255, g·a/255, b·a/255, a)` with every channel in 0…255. Filtering
/// premultiplied values weights each colour by its coverage, so fully transparent pixels (whose
/// RGB is meaningless) cannot bleed dark or stray colours into visible edges.
enum Premultiplied {
    /// Loads pixel `index` (in pixels) of straight RGBA8 `bytes` as premultiplied floats.
    @inline(__always)
    static func load(_ bytes: UnsafePointer<UInt8>, _ index: Int) -> SIMD4<Float> {
        let p = bytes + index &* 4
        let a = Float(p[3])
        let s = a * (1 / 255)
        return SIMD4(Float(p[0]) * s, Float(p[1]) * s, Float(p[2]) * s, a)
    }

    /// Converts `count` straight RGBA8 pixels to premultiplied floats.
    @inline(__always)
    static func loadRow(_ bytes: UnsafePointer<UInt8>, count: Int, into out: UnsafeMutablePointer<SIMD4<Float>>) {
        for i in 0..<count {
            let p = bytes + i &* 4
            // Opaque: a·(1/255) rounds to exactly 1 in Float, so the premultiplied value is
            // the bytes themselves; converting them as one vector gives the same bits.
            if p[3] == 255 {
                let word = UnsafeRawPointer(p).loadUnaligned(as: SIMD4<UInt8>.self)
                out[i] = SIMD4<Float>(SIMD4<Int32>(truncatingIfNeeded: word))
            } else {
                out[i] = load(bytes, i)
            }
        }
    }

    /// Stores a premultiplied value as straight RGBA8 at pixel `index`, rounding and clamping.
    /// A pixel whose alpha rounds to 0 is stored as `(0, 0, 0, 0)`.
    @inline(__always)
    static func store(_ v: SIMD4<Float>, _ bytes: UnsafeMutablePointer<UInt8>, _ index: Int) {
        let p = bytes + index &* 4
        let a = v.w
        if !(a >= 0.5) {
            p[0] = 0; p[1] = 0; p[2] = 0; p[3] = 0
            return
        }
        let alpha = min(a, 255)
        let s = 255 / alpha
        let c = SIMD4(v.x * s, v.y * s, v.z * s, alpha) + 0.5
        p[0] = byte(c.x)
        p[1] = byte(c.y)
        p[2] = byte(c.z)
        p[3] = byte(c.w)
    }

    /// `value` clamped to 0…255 and truncated (NaN gives 0). Scalar comparisons: the generic
    /// SIMD clamp is not inlined and cost more than the rest of the store.
    @inline(__always)
    static func byte(_ value: Float) -> UInt8 {
        let low = value > 0 ? value : 0
        return UInt8(low < 255 ? low : 255)
    }

    /// Converts `count` premultiplied pixels to straight RGBA8.
    @inline(__always)
    static func storeRow(_ values: UnsafePointer<SIMD4<Float>>, count: Int, into bytes: UnsafeMutablePointer<UInt8>) {
        for i in 0..<count { store(values[i], bytes, i) }
    }
}
