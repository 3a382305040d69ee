/// How the AVIF encoder trades CPU for size (imgproxy's `IMGPROXY_AVIF_SPEED` and
/// `avif_options`' speed and chroma subsampling), part of ``EncodeOptions``.
///
/// The default speed depends on the image's size. At equal SSIMULACRA2 score, libaom speed 9
/// costs 0.3–0.5× the CPU of speed 8 on thumbnails, for files about a quarter larger, once its
/// quantizer is lowered by two steps (three for images of at most 0.1 MP, whose fine detail
/// speed 9 loses more). So images up to ``fastestSpeedPixelLimit`` pixels use speed 9 with that
/// lift (``quantizerLift(forPixelCount:)``) and larger ones speed 8 at the quantizer asked for.
/// The measurements are in docs/PERFORMANCE.md, "AVIF encoder" (`make bench-avif`).
public struct AVIFEncodeSettings: Sendable, Hashable {
    /// Whether the chroma planes are halved (4:2:0) or kept (4:4:4).
    public enum ChromaSubsampling: String, Sendable, Hashable, CaseIterable {
        /// 4:2:0 below quality 0.9, 4:4:4 from 0.9 (as libvips' `auto`).
        case auto
        /// Always 4:2:0.
        case on
        /// Always 4:4:4.
        case off
    }

    /// libaom's speed, 0 (slowest, smallest) … 9 (fastest); `nil` chooses by image size.
    public var speed: Int?
    /// Chroma subsampling; lossless encoding is always 4:4:4.
    public var subsampling: ChromaSubsampling

    /// Images up to this many pixels encode at speed 9 when no speed is given; larger ones at 8.
    public static let fastestSpeedPixelLimit = 1_200_000

    /// Settings with `speed` (clamped to 0…9 when given) and `subsampling`.
    public init(speed: Int? = nil, subsampling: ChromaSubsampling = .auto) {
        self.speed = speed.map { min(9, max(0, $0)) }
        self.subsampling = subsampling
    }

    /// The speed for an image of `pixelCount` pixels.
    public func speed(forPixelCount pixelCount: Int) -> Int {
        speed ?? (pixelCount <= Self.fastestSpeedPixelLimit ? 9 : 8)
    }

    /// How many steps below the asked-for quantizer (0…63) an image of `pixelCount` pixels is
    /// encoded at, so that the size-chosen speed 9 scores as well as speed 8 would: 3 up to
    /// 100,000 pixels, 2 up to ``fastestSpeedPixelLimit``, 0 above it or when a speed is given.
    public func quantizerLift(forPixelCount pixelCount: Int) -> Int {
        guard speed == nil, pixelCount <= Self.fastestSpeedPixelLimit else { return 0 }
        return pixelCount <= 100_000 ? 3 : 2
    }

    /// Whether an encode at `quality` (0…1) halves the chroma planes.
    public func subsamples(atQuality quality: Double) -> Bool {
        switch subsampling {
        case .auto: quality < 0.9
        case .on: true
        case .off: false
        }
    }
}
