/// A row of RGBA8 pixels as overlapping neighbour pairs for ``FixedPointKernel``: entry `j` is
/// `[r_j r_j+1 g_j g_j+1 b_j b_j+1 a_j a_j+1]` as `Int16`, so one multiply-add applies two taps
/// to all four channels.
enum PixelPairs {
    /// `true` when all `count` pixels at `bytes` have alpha 255 (their premultiplied values are
    /// the bytes themselves).
    @inline(__always)
    static func areOpaque(_ bytes: UnsafePointer<UInt8>, count: Int) -> Bool {
        // AND of every pixel's alpha byte, four pixels a vector; little- or big-endian alike.
        let raw = UnsafeRawPointer(bytes)
        var all = SIMD16<UInt8>(repeating: 255)
        var i = 0
        while i &+ 16 <= count {
            let o = i &* 4
            all &= raw.loadUnaligned(fromByteOffset: o, as: SIMD16<UInt8>.self)
                & raw.loadUnaligned(fromByteOffset: o &+ 16, as: SIMD16<UInt8>.self)
                & raw.loadUnaligned(fromByteOffset: o &+ 32, as: SIMD16<UInt8>.self)
                & raw.loadUnaligned(fromByteOffset: o &+ 48, as: SIMD16<UInt8>.self)
            i &+= 16
        }
        while i &+ 4 <= count {
            all &= raw.loadUnaligned(fromByteOffset: i &* 4, as: SIMD16<UInt8>.self)
            i &+= 4
        }
        var alpha = all[3] & all[7] & all[11] & all[15]
        while i < count {
            alpha &= bytes[i &* 4 &+ 3]
            i += 1
        }
        return alpha == 255
    }

    /// Writes entries `from..<to` of the row at `bytes` (the row's first pixel) into `pairs`
    /// (indexed by pixel position). The last entry's second pixel is zero: nothing reads past
    /// `to`, so this never touches memory beyond the span. Returns whether pixels `from..<to`
    /// are all opaque (``areOpaque(_:count:)`` of the span, found in the same pass); when they
    /// are not, the pairs are of no use to ``FixedPointKernel``.
    @inline(__always)
    static func load(_ bytes: UnsafePointer<UInt8>, from: Int, to end: Int, into pairs: UnsafeMutablePointer<SIMD8<Int16>>) -> Bool {
        let raw = UnsafeRawPointer(bytes)
        // The AND of every loaded pixel; each of `from..<to` is the first four bytes of some
        // `x` below or one of the last pixels.
        var all = SIMD16<UInt8>(repeating: 255)
        var j = from
        // Pixels j…j+3 and j+1…j+4, interleaved byte by byte, hold pairs j…j+3.
        while j + 5 <= end {
            let x = raw.loadUnaligned(fromByteOffset: j &* 4, as: SIMD16<UInt8>.self)
            let y = raw.loadUnaligned(fromByteOffset: j &* 4 &+ 4, as: SIMD16<UInt8>.self)
            all &= x
            let low = SIMD16<UInt8>(
                x[0], y[0], x[1], y[1], x[2], y[2], x[3], y[3], x[4], y[4], x[5], y[5], x[6], y[6], x[7], y[7])
            let high = SIMD16<UInt8>(
                x[8], y[8], x[9], y[9], x[10], y[10], x[11], y[11], x[12], y[12], x[13], y[13], x[14], y[14], x[15], y[15])
            pairs[j] = Lanes.int16(low.lowHalf)
            pairs[j &+ 1] = Lanes.int16(low.highHalf)
            pairs[j &+ 2] = Lanes.int16(high.lowHalf)
            pairs[j &+ 3] = Lanes.int16(high.highHalf)
            j &+= 4
        }
        var alpha = all[3] & all[7] & all[11] & all[15]
        while j < end {
            let p = bytes + j &* 4
            alpha &= p[3]
            let q: SIMD4<Int16> = j + 1 < end
                ? SIMD4(Int16(p[4]), Int16(p[5]), Int16(p[6]), Int16(p[7])) : .zero
            pairs[j] = SIMD8(Int16(p[0]), q[0], Int16(p[1]), q[1], Int16(p[2]), q[2], Int16(p[3]), q[3])
            j &+= 1
        }
        return alpha == 255
    }
}
