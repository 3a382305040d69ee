/// Lane conversions and clamps for the resampler's hot loops.
///
/// Why not the standard library's `init(truncatingIfNeeded:)` and `replacing(with:where:)`
/// everywhere: they are generic, so the optimiser makes one specialisation per use, and whether
/// each is inlined into the loop depends on how the module happens to be compiled — in SwiftPM's
/// release build (`-num-threads`, one LLVM object per source file) they can stay calls per
/// pixel. Written lane by lane here, they cannot. The exception is `int32`: LLVM forms the
/// horizontal pass's `pmaddwd` only from a vector sign extension feeding the multiply, which a
/// lane-by-lane version hides, so `int32` is the standard library's conversion, wrapped so that
/// it is always inlined. docs/PERFORMANCE.md ("The service's resize") has the measurements.
enum Lanes {
    /// Each lane sign-extended to 32 bits.
    @inline(__always)
    static func int32(_ v: SIMD8<Int16>) -> SIMD8<Int32> {
        SIMD8<Int32>(truncatingIfNeeded: v)
    }

    /// Each lane zero-extended to 16 bits.
    @inline(__always)
    static func int16(_ v: SIMD8<UInt8>) -> SIMD8<Int16> {
        SIMD8<Int16>(
            Int16(v[0]), Int16(v[1]), Int16(v[2]), Int16(v[3]),
            Int16(v[4]), Int16(v[5]), Int16(v[6]), Int16(v[7]))
    }

    /// Each lane's low 16 bits.
    @inline(__always)
    static func int16(truncating v: SIMD4<Int32>) -> SIMD4<Int16> {
        SIMD4<Int16>(
            Int16(truncatingIfNeeded: v[0]), Int16(truncatingIfNeeded: v[1]),
            Int16(truncatingIfNeeded: v[2]), Int16(truncatingIfNeeded: v[3]))
    }

    /// Each lane clamped to 0…255, as bytes.
    @inline(__always)
    static func clampedBytes(_ v: SIMD4<Int32>) -> SIMD4<UInt8> {
        // Negative lanes to 0 (their sign bits), then lanes over 255 to 255 (the sign of
        // 255 − v), with the bitwise operators, which the standard library always inlines.
        let low = v & ~(v &>> 31)
        let over = (255 &- low) &>> 31
        let c = (low & ~over) | (over & 255)
        return SIMD4<UInt8>(
            UInt8(truncatingIfNeeded: c[0]), UInt8(truncatingIfNeeded: c[1]),
            UInt8(truncatingIfNeeded: c[2]), UInt8(truncatingIfNeeded: c[3]))
    }
}
