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
        let raw = UnsafeRawPointer(bytes)
        for i in 0..<count {
            // The same products as `load`, as one vector: (r·s, g·s, b·s, a·1) with
            // s = a·(1/255). For opaque pixels s rounds to exactly 1, so they are the bytes.
            // (The multiplier is spelled as in `store`, for the same reason.)
            let word = raw.loadUnaligned(fromByteOffset: i &* 4, as: SIMD4<UInt8>.self)
            let v = SIMD4<Float>(SIMD4<Int32>(truncatingIfNeeded: word))
            let s = v.w * (1 / 255)
            out[i] = v * (SIMD4<Float>(repeating: s) * SIMD4(1, 1, 1, 0) + SIMD4(0, 0, 0, 1))
        }
    }

    /// Stores a premultiplied value as straight RGBA8 at pixel `index`, rounding (half up) and
    /// clamping. A pixel whose alpha rounds to 0 is stored as `(0, 0, 0, 0)`.
    @inline(__always)
    static func store(_ v: SIMD4<Float>, _ bytes: UnsafeMutablePointer<UInt8>, _ index: Int) {
        let p = UnsafeMutableRawPointer(bytes + index &* 4)
        let a = v.w
        if !(a >= 0.5) {
            p.storeBytes(of: .zero, as: SIMD4<UInt8>.self)
            return
        }
        let s = 255 / (a < 255 ? a : 255)
        // (s, s, s, 1), spelled so that LLVM builds it with one shuffle.
        let m = SIMD4<Float>(repeating: s) * SIMD4(1, 1, 1, 0) + SIMD4(0, 0, 0, 1)
        p.storeBytes(of: bytes4(v * m + 0.5), as: SIMD4<UInt8>.self)
    }

    /// Stores a premultiplied value known to come from opaque pixels only (its alpha is 255
    /// up to the rounding of the weights' sum, which is within 10⁻³ of 1): no division, and the
    /// alpha lane rounds to 255 by itself.
    @inline(__always)
    static func storeOpaque(_ v: SIMD4<Float>, _ bytes: UnsafeMutablePointer<UInt8>, _ index: Int) {
        UnsafeMutableRawPointer(bytes + index &* 4).storeBytes(of: bytes4(v + 0.5), as: SIMD4<UInt8>.self)
    }

    /// ``store(_:_:_:)`` or, when `opaque`, ``storeOpaque(_:_:_:)``.
    @inline(__always)
    static func store(_ v: SIMD4<Float>, _ bytes: UnsafeMutablePointer<UInt8>, _ index: Int, opaque: Bool) {
        if opaque { storeOpaque(v, bytes, index) } else { store(v, bytes, index) }
    }

    /// Every lane clamped to 0…255 and truncated (NaN gives 0), as bytes — in vector
    /// instructions: Swift's float-to-integer vector conversion is generic and scalar, so the
    /// integer is read from the bits of `value + 2²³` (whose last mantissa bits are the value
    /// rounded to nearest), one less where that rounded up.
    @inline(__always)
    static func bytes4(_ value: SIMD4<Float>) -> SIMD4<UInt8> {
        let magic: Float = 8_388_608
        var c = value.replacing(with: 0, where: .!(value .> 0))
        c = c.replacing(with: 255, where: c .> 255)
        let t = c + magic
        let up = SIMD4<UInt32>(repeating: 0).replacing(with: 1, where: t - magic .> c)
        return SIMD4<UInt8>(truncatingIfNeeded: unsafeBitCast(t, to: SIMD4<UInt32>.self) &- up)
    }

    /// Converts `count` premultiplied pixels to straight RGBA8.
    @inline(__always)
    static func storeRow(_ values: UnsafePointer<SIMD4<Float>>, count: Int, into bytes: UnsafeMutablePointer<UInt8>, opaque: Bool = false) {
        if opaque {
            for i in 0..<count { storeOpaque(values[i], bytes, i) }
        } else {
            for i in 0..<count { store(values[i], bytes, i) }
        }
    }
}
