/// How a ``PixelBuffer`` stores its samples (SPEC H-1).
///
/// Both formats are RGBA with straight (non-premultiplied) alpha, rows top to bottom, tightly
/// packed. ``rgba8`` is the default everywhere and what every decoder produces unless asked
/// otherwise (``DecodeOptions/preferredPixelFormat``).
///
/// The high-bit-depth format is 16-bit unsigned **integer**, not half float: it is what 16-bit
/// PNG and TIFF store and what 10- and 12-bit AVIF, HEIC and JPEG XL samples widen to without
/// loss (a half float keeps 11 significant bits, fewer than a 12-bit code value near white needs),
/// what libpng/libspng, libtiff, libavif and libheif read and write directly, and the format
/// libvips (`ushort`) and imgproxy use for the same sources.
public enum PixelFormat: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// 8 bits a channel, 4 bytes a pixel: `R G B A`.
    case rgba8
    /// 16 bits a channel, 8 bytes a pixel: four host-endian `UInt16` values `R G B A`, each
    /// using the full range 0…65535 (a 10-bit sample `v` is stored as `v · 65535 / 1023`,
    /// rounded).
    case rgba16

    /// Bytes one pixel takes: 4 or 8.
    public var bytesPerPixel: Int {
        switch self {
        case .rgba8: return 4
        case .rgba16: return 8
        }
    }

    /// Bits of one channel: 8 or 16.
    public var bitsPerChannel: Int {
        switch self {
        case .rgba8: return 8
        case .rgba16: return 16
        }
    }

    public var description: String { rawValue }
}
