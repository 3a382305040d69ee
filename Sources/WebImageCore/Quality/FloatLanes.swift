/// Branch-free lane operations on eight floats for the metric's inner loops, done on the bits
/// (the standard library's `pointwiseMax` handles NaN lane by lane and does not vectorise).
enum FloatLanes {
    typealias V8 = SIMD8<Float>

    /// `max(v, 0)` in each lane (−0 gives +0; the metric has no NaN).
    @inline(__always)
    static func clampedAtZero(_ v: V8) -> V8 {
        let bits = unsafeBitCast(v, to: SIMD8<Int32>.self)
        // The arithmetic shift spreads the sign bit: all ones for negative lanes, which the
        // complement then clears.
        return unsafeBitCast(bits & ~(bits &>> 31), to: V8.self)
    }

    /// `|v|` in each lane: the sign bit cleared.
    @inline(__always)
    static func magnitude(_ v: V8) -> V8 {
        let bits = unsafeBitCast(v, to: SIMD8<UInt32>.self)
        return unsafeBitCast(bits & SIMD8(repeating: 0x7FFF_FFFF), to: V8.self)
    }
}
