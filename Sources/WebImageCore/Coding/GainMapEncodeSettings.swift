/// How a gain map is computed when an HDR image is written as a gain-map JPEG (SPEC H-5), part
/// of ``EncodeOptions``.
///
/// An RGBA16 image described as PQ or HLG (what ``DynamicRange/high`` decodes) written as JPEG
/// becomes its SDR rendition (the BT.2408 tone mapping every PQ/HLG source gets) plus a map of
/// `log2((HDR + alternateOffset) / (SDR + baseOffset))` per map pixel, written with
/// ISO 21496-1 and Ultra HDR metadata together. ``EncodeOptions/keepsGainMap`` off (or a
/// ``EncodeOptions/maxFileSize``) writes the SDR rendition alone.
///
/// The defaults: one channel and a quarter of the image's width and height, gamma 1, offsets
/// 1/4096. The offsets only keep the logarithm finite at
/// black: a reader adds the SDR offset to every channel before the gain and takes the HDR offset
/// away after it, so a channel far below the luminance (a saturated highlight) comes back
/// `k · (G − 1)` off with a one-channel map; 1/4096 keeps that under 1/256 of SDR white at a
/// 16× gain (Adobe's 1/64 costs 20 dB of PQ PSNR on saturated highlights; libultrahdr writes 0).
public struct GainMapEncodeSettings: Sendable, Hashable {
    /// The map is ⌈side / scale⌉ pixels a side; each map pixel covers a `scale`×`scale` block.
    /// 1…128; default 4.
    public var scale: Int
    /// 1: one gain from luminance, applied equally to red, green and blue (a greyscale map);
    /// 3: one gain per channel. Default 1.
    public var channelCount: Int
    /// The map's encoding gamma (ISO 21496-1): map codes are `((g − min) / (max − min))^gamma`.
    /// Above 1 gives more codes to the small gains. Default 1.
    public var gamma: Double
    /// Added to the SDR's linear values before the gain (Ultra HDR `OffsetSDR`). Default 1/4096.
    public var baseOffset: Double
    /// Subtracted after the gain (Ultra HDR `OffsetHDR`). Default 1/4096.
    public var alternateOffset: Double
    /// The quality the map is written at, 0…1 (at least 0.85, as for a kept map); `nil` is the
    /// output's quality.
    public var quality: Double?

    public init(
        scale: Int = 4, channelCount: Int = 1, gamma: Double = 1, baseOffset: Double = 1.0 / 4096,
        alternateOffset: Double = 1.0 / 4096, quality: Double? = nil
    ) {
        self.scale = scale
        self.channelCount = channelCount
        self.gamma = gamma
        self.baseOffset = baseOffset
        self.alternateOffset = alternateOffset
        self.quality = quality
    }

    /// ``scale`` limited to 1…128.
    public var clampedScale: Int { min(128, max(1, scale)) }
    /// ``channelCount`` as 1 or 3 (anything but 3 is 1).
    public var clampedChannelCount: Int { channelCount == 3 ? 3 : 1 }
    /// ``gamma`` limited to 1/16…16; 1 when not finite and positive.
    public var clampedGamma: Double { gamma.isFinite && gamma > 0 ? min(max(gamma, 1.0 / 16), 16) : 1 }
    /// An offset when finite, limited to 1/65536…1 (0 would make black's gain infinite); else 1/4096.
    static func clampedOffset(_ value: Double) -> Double { value.isFinite ? min(max(value, 1.0 / 65_536), 1) : 1.0 / 4096 }
    /// ``baseOffset`` limited to 1/65536…1.
    public var clampedBaseOffset: Double { Self.clampedOffset(baseOffset) }
    /// ``alternateOffset`` limited to 1/65536…1.
    public var clampedAlternateOffset: Double { Self.clampedOffset(alternateOffset) }
}
