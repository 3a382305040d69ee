/// How the PNG encoder writes its file (imgproxy's `IMGPROXY_PNG_*` settings and
/// `png_options`), part of ``EncodeOptions``.
public struct PNGEncodeSettings: Sendable, Hashable {
    /// Adam7 interlacing (a coarse image first, refined in seven passes).
    public var interlaced: Bool
    /// Write a palette of at most ``quantizationColors`` colours (an 8-bit indexed PNG):
    /// median cut, no dithering, alpha below 128 transparent and the rest opaque (the GIF
    /// encoder's quantiser). Exact when the image has no more colours than that.
    public var quantize: Bool
    /// The most palette entries when quantizing, 2…256.
    public var quantizationColors: Int

    /// Settings: not interlaced, full colour, 256 colours when quantizing.
    public init(interlaced: Bool = false, quantize: Bool = false, quantizationColors: Int = 256) {
        self.interlaced = interlaced
        self.quantize = quantize
        self.quantizationColors = min(256, max(2, quantizationColors))
    }
}
