/// An immutable block of decoded pixels.
///
/// Layout: RGBA, **straight (non-premultiplied) alpha**, rows top to bottom, tightly packed
/// (`bytesPerRow == width * format.bytesPerPixel`). The ``format`` is 8-bit RGBA unless a decoder
/// was asked for high bit depth (``PixelFormat/rgba16``, SPEC H-1); every decoder produces RGBA8
/// by default and every encoder consumes it; transformers that need premultiplied values convert
/// internally.
///
/// A `PixelBuffer` is a class so that images and caches share one buffer by reference: a cache
/// hit never copies pixels, and frames that reuse a buffer are counted once in ``Image/cost``.
public final class PixelBuffer: Sendable {
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// The pixel bytes, `width * height * format.bytesPerPixel` of them (for ``PixelFormat/rgba16``,
    /// host-endian `UInt16` samples; read them with ``withSamples16(_:)``).
    public let bytes: [UInt8]
    /// How the bytes store samples: ``PixelFormat/rgba8`` unless made otherwise.
    public let format: PixelFormat

    /// Bytes per pixel in the library's default layout (RGBA8). A buffer's own is
    /// `format.bytesPerPixel`.
    public static let bytesPerPixel = 4

    /// Bytes in one row.
    public var bytesPerRow: Int { width * format.bytesPerPixel }

    /// Total bytes of pixel data.
    public var byteCount: Int { bytes.count }

    /// Wraps existing RGBA8 bytes. `bytes.count` must equal `width * height * 4`.
    public init(width: Int, height: Int, bytes: [UInt8]) {
        precondition(width > 0 && height > 0, "PixelBuffer dimensions must be positive")
        precondition(bytes.count == width * height * PixelBuffer.bytesPerPixel, "PixelBuffer byte count mismatch")
        self.width = width
        self.height = height
        self.bytes = bytes
        self.format = .rgba8
    }

    /// Wraps existing bytes in `format`. `bytes.count` must equal
    /// `width * height * format.bytesPerPixel`.
    public init(width: Int, height: Int, format: PixelFormat, bytes: [UInt8]) {
        precondition(width > 0 && height > 0, "PixelBuffer dimensions must be positive")
        precondition(bytes.count == width * height * format.bytesPerPixel, "PixelBuffer byte count mismatch")
        self.width = width
        self.height = height
        self.bytes = bytes
        self.format = format
    }

    /// Allocates storage for `width × height` pixels **without zero-filling it** and lets
    /// `initializer` write every byte. This is how decoders write straight into the final buffer.
    ///
    /// - Important: `initializer` must initialise all `width * height * 4` bytes.
    public static func make(
        width: Int,
        height: Int,
        initializer: (UnsafeMutableBufferPointer<UInt8>) throws -> Void
    ) rethrows -> PixelBuffer {
        let count = width * height * bytesPerPixel
        let storage = try [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            try initializer(buffer)
            initialized = count
        }
        return PixelBuffer(width: width, height: height, bytes: storage)
    }

    /// Returns the pixel at (`x`, `y`) as straight-alpha RGBA8 (a 16-bit sample rounded to the
    /// nearest 8-bit value).
    public func pixel(x: Int, y: Int) -> RGBA {
        precondition(x >= 0 && x < width && y >= 0 && y < height, "pixel out of bounds")
        if format == .rgba16 {
            let s = sample16(x: x, y: y)
            return RGBA(r: PixelFormat.narrow(s[0]), g: PixelFormat.narrow(s[1]), b: PixelFormat.narrow(s[2]), a: PixelFormat.narrow(s[3]))
        }
        let i = (y * width + x) * PixelBuffer.bytesPerPixel
        return RGBA(r: bytes[i], g: bytes[i + 1], b: bytes[i + 2], a: bytes[i + 3])
    }

    /// `true` when every pixel has alpha 255. Scans the buffer; decoders usually know this
    /// already and record it in ``Image/hasAlpha``.
    public func isFullyOpaque() -> Bool {
        if format == .rgba16 { return isFullyOpaque16() }
        var i = 3
        while i < bytes.count {
            if bytes[i] != 255 { return false }
            i += 4
        }
        return true
    }
}

/// One straight-alpha RGBA8 colour value.
public struct RGBA: Sendable, Hashable, CustomStringConvertible {
    public var r: UInt8
    public var g: UInt8
    public var b: UInt8
    public var a: UInt8

    public init(r: UInt8, g: UInt8, b: UInt8, a: UInt8 = 255) {
        self.r = r
        self.g = g
        self.b = b
        self.a = a
    }

    public var description: String { "RGBA(\(r), \(g), \(b), \(a))" }
}

/// A size in pixels.
public struct PixelSize: Sendable, Hashable, CustomStringConvertible {
    public var width: Int
    public var height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// Number of pixels (`width * height`), saturating instead of overflowing.
    public var pixelCount: Int {
        let (product, overflow) = width.multipliedReportingOverflow(by: height)
        return overflow ? Int.max : product
    }

    public var description: String { "\(width)x\(height)" }
}
