/// How to encode one image (SPEC C-5).
public struct EncodeOptions: Sendable, Hashable {
    /// Quality from 0 (smallest) to 1 (best) for lossy formats. Default 0.9.
    public var quality: Double = 0.9
    /// Encode WebP losslessly (ignored by formats that are always lossless or always lossy).
    public var lossless: Bool = false
    /// Shrink the image to fit within this size before encoding (aspect ratio kept).
    public var maxPixelSize: PixelSize?
    /// Try to produce at most this many bytes, by searching the quality (lossy formats) and then
    /// the size. Best effort: the smallest result found is returned if none fits.
    public var maxFileSize: Int?
    /// Encode every frame of an animated image (formats that support animation); `false`
    /// encodes the first frame only.
    public var keepAnimation: Bool = true
    /// Write the image's gain map (``Image/gainMap``) where the format carries one here (JPEG:
    /// Ultra HDR and ISO 21496-1 together). Formats that cannot carry one leave it out whatever
    /// this says; JPEG output of an HDR image without a map computes one (``gainMap``). Default
    /// on; off writes the SDR base alone.
    public var keepsGainMap: Bool = true
    /// How JPEG output computes a gain map from an HDR image (an RGBA16 PQ or HLG picture), when
    /// ``keepsGainMap`` is on: see ``GainMapEncodeSettings``.
    public var gainMap = GainMapEncodeSettings()
    /// AVIF's speed and chroma subsampling (by default chosen by image size).
    public var avif = AVIFEncodeSettings()
    /// JPEG's progressive scans and chroma subsampling.
    public var jpeg = JPEGEncodeSettings()
    /// PNG's interlacing and palette quantisation (still images).
    public var png = PNGEncodeSettings()
    /// WebP's compression method, smart subsampling and preset.
    public var webp = WebPEncodeSettings()
    /// JPEG XL's effort, 1 (fastest) … 9 (smallest); `nil` is libjxl's default, 7.
    public var jxlEffort: Int?
    /// The bits a channel an RGBA16 image (``PixelFormat/rgba16``) is written with in formats
    /// that store 10 or 12 (AVIF): 12 for 12, anything else for 10 (the default). PNG and TIFF
    /// write 16 bits; 8-bit images and 8-bit formats ignore it (SPEC H-1).
    public var highBitDepth: Int = 10

    public init(
        quality: Double = 0.9,
        lossless: Bool = false,
        maxPixelSize: PixelSize? = nil,
        maxFileSize: Int? = nil,
        keepAnimation: Bool = true
    ) {
        self.quality = quality
        self.lossless = lossless
        self.maxPixelSize = maxPixelSize
        self.maxFileSize = maxFileSize
        self.keepAnimation = keepAnimation
    }

    /// The default options.
    public static let `default` = EncodeOptions()

    /// ``quality`` clamped to 0…1.
    public var clampedQuality: Double { min(1, max(0, quality.isNaN ? 0.9 : quality)) }
}
