/// 16-bit buffers (``PixelFormat/rgba16``): making them, reading their samples, and converting
/// between the two formats.
extension PixelBuffer {
    /// Allocates storage for `width × height` RGBA16 pixels **without zero-filling it** and lets
    /// `initializer` write every sample (`width * height * 4` host-endian `UInt16` values).
    public static func make16(
        width: Int,
        height: Int,
        initializer: (UnsafeMutableBufferPointer<UInt16>) throws -> Void
    ) rethrows -> PixelBuffer {
        let count = width * height * PixelFormat.rgba16.bytesPerPixel
        let storage = try [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            try buffer.withMemoryRebound(to: UInt16.self) { try initializer($0) }
            initialized = count
        }
        return PixelBuffer(width: width, height: height, format: .rgba16, bytes: storage)
    }

    /// Runs `body` with the samples of an RGBA16 buffer (`width * height * 4` values).
    /// - Precondition: ``format`` is ``PixelFormat/rgba16``.
    public func withSamples16<T>(_ body: (UnsafeBufferPointer<UInt16>) throws -> T) rethrows -> T {
        precondition(format == .rgba16, "withSamples16 needs an RGBA16 buffer")
        return try bytes.withUnsafeBytes { try body($0.bindMemory(to: UInt16.self)) }
    }

    /// The RGBA16 sample at (`x`, `y`) of an RGBA16 buffer.
    public func sample16(x: Int, y: Int) -> SIMD4<UInt16> {
        precondition(x >= 0 && x < width && y >= 0 && y < height, "pixel out of bounds")
        return withSamples16 { s in
            let i = (y * width + x) * 4
            return SIMD4(s[i], s[i + 1], s[i + 2], s[i + 3])
        }
    }

    /// `true` when every alpha sample of an RGBA16 buffer is 65535.
    func isFullyOpaque16() -> Bool {
        withSamples16 { s in
            var i = 3
            while i < s.count {
                if s[i] != .max { return false }
                i += 4
            }
            return true
        }
    }

    /// The buffer in RGBA8: `self` when it already is; otherwise each sample rounded to the
    /// nearest 8-bit value (`v · 255 / 65535`, halves up), which is exact for values that came
    /// from 8 bits (`v = b · 257`).
    public func convertedToRGBA8() -> PixelBuffer {
        guard format == .rgba16 else { return self }
        return withSamples16 { s in
            PixelBuffer.make(width: width, height: height) { out in
                for i in 0..<out.count { out[i] = PixelFormat.narrow(s[i]) }
            }
        }
    }

    /// The buffer in RGBA16: `self` when it already is; otherwise each byte `b` widened to
    /// `b · 257` (0 → 0, 255 → 65535), exactly reversible by ``convertedToRGBA8()``.
    public func convertedToRGBA16() -> PixelBuffer {
        guard format == .rgba8 else { return self }
        return bytes.withUnsafeBufferPointer { b in
            PixelBuffer.make16(width: width, height: height) { out in
                for i in 0..<out.count { out[i] = UInt16(b[i]) &* 257 }
            }
        }
    }

    /// The buffer in `format` (see ``convertedToRGBA8()`` and ``convertedToRGBA16()``).
    public func converted(to format: PixelFormat) -> PixelBuffer {
        format == .rgba8 ? convertedToRGBA8() : convertedToRGBA16()
    }
}

extension PixelFormat {
    /// A 16-bit sample rounded to the nearest 8-bit value: `round(v · 255 / 65535)`.
    @inline(__always)
    public static func narrow(_ v: UInt16) -> UInt8 {
        UInt8(truncatingIfNeeded: (UInt32(v) &* 255 &+ 32_767) / 65_535)
    }

    /// A `bits`-bit sample (1…16) scaled to the full 16-bit range: `round(v · 65535 / (2^bits − 1))`.
    /// Values above the range are clamped.
    @inline(__always)
    public static func widen(_ v: UInt16, bits: Int) -> UInt16 {
        if bits >= 16 { return v }
        let maxValue = UInt32(1) << UInt32(bits) - 1
        let c = min(UInt32(v), maxValue)
        return UInt16(truncatingIfNeeded: (c &* 65_535 &+ maxValue / 2) / maxValue)
    }
}

extension PixelBuffer {
    /// ``make(width:height:initializer:)`` for either format: `initializer` writes all
    /// `width * height * format.bytesPerPixel` bytes.
    public static func make(
        width: Int,
        height: Int,
        format: PixelFormat,
        initializer: (UnsafeMutableBufferPointer<UInt8>) throws -> Void
    ) rethrows -> PixelBuffer {
        let count = width * height * format.bytesPerPixel
        let storage = try [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            try initializer(buffer)
            initialized = count
        }
        return PixelBuffer(width: width, height: height, format: format, bytes: storage)
    }
}
