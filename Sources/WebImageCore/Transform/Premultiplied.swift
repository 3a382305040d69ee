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
        for i in 0..<count { out[i] = load(bytes, i) }
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
        var c = SIMD4(v.x * s, v.y * s, v.z * s, alpha) + 0.5
        c = c.clamped(lowerBound: SIMD4(repeating: 0), upperBound: SIMD4(repeating: 255.5))
        p[0] = UInt8(min(c.x, 255))
        p[1] = UInt8(min(c.y, 255))
        p[2] = UInt8(min(c.z, 255))
        p[3] = UInt8(min(c.w, 255))
    }

    /// Converts `count` premultiplied pixels to straight RGBA8.
    @inline(__always)
    static func storeRow(_ values: UnsafePointer<SIMD4<Float>>, count: Int, into bytes: UnsafeMutablePointer<UInt8>) {
        for i in 0..<count { store(values[i], bytes, i) }
    }
}
