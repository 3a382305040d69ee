/// How the AVIF encoder trades CPU for size (imgproxy's `IMGPROXY_AVIF_SPEED` and
/// `avif_options`' speed and chroma subsampling), part of ``EncodeOptions``.
///
/// The default speed depends on the image's size: AV1 at libaom speed 9 costs about half the CPU
/// of speed 8 on thumbnails for files about a fifth larger at the same SSIMULACRA2 score, so
/// images up to ``fastestSpeedPixelLimit`` pixels use 9 and larger ones 8 (the measurements
/// are in docs/PERFORMANCE.md, "AVIF encoder"). Quality then gets a small lift at speed 9 so
/// the score matches speed 8's (``qualityLift``).
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
    /// Added to the quality (0…1) at speed 9, when no speed is given, so that the result scores
    /// as well as speed 8 at the requested quality (one step of the AV1 quantizer, about 0.02).
    public static let qualityLift = 0.02

    /// Settings with `speed` (clamped to 0…9 when given) and `subsampling`.
    public init(speed: Int? = nil, subsampling: ChromaSubsampling = .auto) {
        self.speed = speed.map { min(9, max(0, $0)) }
        self.subsampling = subsampling
    }

    /// The speed for an image of `pixelCount` pixels.
    public func speed(forPixelCount pixelCount: Int) -> Int {
        speed ?? (pixelCount <= Self.fastestSpeedPixelLimit ? 9 : 8)
    }

    /// The quality (0…1) to encode at for `quality` asked and an image of `pixelCount` pixels:
    /// lifted by ``qualityLift`` when the size-chosen speed is 9.
    public func quality(_ quality: Double, forPixelCount pixelCount: Int) -> Double {
        guard speed == nil, pixelCount <= Self.fastestSpeedPixelLimit, quality < 1 else { return quality }
        return min(1, quality + Self.qualityLift)
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
