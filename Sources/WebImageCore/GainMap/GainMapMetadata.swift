import Foundation

/// The values of a gain map (ISO 21496-1), the same ones Ultra HDR 1.0 writes as `hdrgm:` XMP.
///
/// Gains, headrooms and offsets are as both formats define them: ``Channel/gainMapMin``,
/// ``Channel/gainMapMax``, ``baseHeadroom`` and ``alternateHeadroom`` in log2 units (Ultra HDR's
/// `GainMapMin`, `GainMapMax`, `HDRCapacityMin`, `HDRCapacityMax`), offsets and gamma linear
/// (`OffsetSDR`, `OffsetHDR`, `Gamma`). A map code value `v` (0…1) stands for the gain
/// `G = 2^(min + (max − min) · v^(1/gamma))`, and the alternate (HDR) rendition of a linear
/// base value `B` is `(B + baseOffset) · G − alternateOffset`, weighted by the display's
/// headroom between ``baseHeadroom`` and ``alternateHeadroom``.
public struct GainMapMetadata: Sendable, Hashable {
    /// The per-channel values: one set for a map applied equally to red, green and blue, three
    /// (red, green, blue) otherwise.
    public struct Channel: Sendable, Hashable {
        /// log2 of the smallest gain a map value 0 stands for.
        public var gainMapMin: Double
        /// log2 of the largest gain a map value 1 stands for.
        public var gainMapMax: Double
        /// The map's encoding gamma (greater than 0).
        public var gamma: Double
        /// Added to the base's linear values before the gain (Ultra HDR `OffsetSDR`).
        public var baseOffset: Double
        /// Subtracted after the gain (Ultra HDR `OffsetHDR`).
        public var alternateOffset: Double

        public init(gainMapMin: Double, gainMapMax: Double, gamma: Double = 1, baseOffset: Double = 1.0 / 64, alternateOffset: Double = 1.0 / 64) {
            self.gainMapMin = gainMapMin
            self.gainMapMax = gainMapMax
            self.gamma = gamma
            self.baseOffset = baseOffset
            self.alternateOffset = alternateOffset
        }
    }

    /// One or three channels.
    public var channels: [Channel]
    /// log2 of the display headroom at which the base is shown as it is (`HDRCapacityMin`).
    public var baseHeadroom: Double
    /// log2 of the headroom at which the full gain applies (`HDRCapacityMax`).
    public var alternateHeadroom: Double
    /// Whether the base is the HDR rendition and the map leads to SDR (`BaseRenditionIsHDR`,
    /// ISO's backward direction).
    public var baseIsHDR: Bool
    /// Whether the gain applies in the base's colour space (ISO `use_base_colour_space`).
    public var usesBaseColorSpace: Bool

    public init(channels: [Channel], baseHeadroom: Double = 0, alternateHeadroom: Double, baseIsHDR: Bool = false, usesBaseColorSpace: Bool = true) {
        self.channels = channels
        self.baseHeadroom = baseHeadroom
        self.alternateHeadroom = alternateHeadroom
        self.baseIsHDR = baseIsHDR
        self.usesBaseColorSpace = usesBaseColorSpace
    }

    /// The HDR rendition's headroom as a linear factor over SDR white (`2^alternateHeadroom`),
    /// what `/info` reports.
    public var headroom: Double {
        pow(2, max(baseHeadroom, alternateHeadroom))
    }

    /// Throws a ``GainMapIssue`` with ``GainMapIssue/Kind/metadata`` when the values cannot
    /// describe a gain map: a channel count other than 1 or 3, a value that is not finite, a
    /// gamma that is not positive, a maximum below its minimum, or an alternate headroom below
    /// the base headroom (as libultrahdr refuses them).
    public func validate() throws(GainMapIssue) {
        guard channels.count == 1 || channels.count == 3 else {
            throw GainMapIssue(.metadata, "\(channels.count) channels; a gain map has 1 or 3")
        }
        let headrooms = [baseHeadroom, alternateHeadroom]
        guard headrooms.allSatisfy(\.isFinite) else { throw GainMapIssue(.metadata, "a headroom is not a finite number") }
        guard alternateHeadroom >= baseHeadroom else {
            throw GainMapIssue(.metadata, "the HDR capacity maximum \(alternateHeadroom) is below its minimum \(baseHeadroom)")
        }
        for (index, c) in channels.enumerated() {
            guard [c.gainMapMin, c.gainMapMax, c.gamma, c.baseOffset, c.alternateOffset].allSatisfy(\.isFinite) else {
                throw GainMapIssue(.metadata, "channel \(index): a value is not a finite number")
            }
            guard c.gamma > 0 else { throw GainMapIssue(.metadata, "channel \(index): gamma \(c.gamma) is not positive") }
            guard c.gainMapMax >= c.gainMapMin else {
                throw GainMapIssue(.metadata, "channel \(index): the gain maximum \(c.gainMapMax) is below the minimum \(c.gainMapMin)")
            }
        }
    }

    /// The map code value (0…1) that stands for a gain of 1 in `channel` (no change): what
    /// areas added around the base (extend, padding) get in the map.
    public func neutralValue(channel: Int) -> Double {
        let c = channels[min(max(channel, 0), channels.count - 1)]
        guard c.gainMapMax > c.gainMapMin else { return 0 }
        let linear = min(1, max(0, (0 - c.gainMapMin) / (c.gainMapMax - c.gainMapMin)))
        return pow(linear, c.gamma)
    }
}
