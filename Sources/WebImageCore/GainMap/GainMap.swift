import Foundation

/// An image's gain map (SPEC H-2): the picture of per-pixel gains that turns the SDR base into
/// its HDR rendition (ISO 21496-1, Ultra HDR), carried by ``Image/gainMap``.
///
/// - Pixels: RGBA8 like every ``PixelBuffer``, opaque; a one-channel map has red = green =
///   blue. The values are code values as stored (never colour-managed).
/// - Scale: the map covers the whole base at its own resolution, usually the base's size or a
///   whole fraction of it (libultrahdr writes ⌈side / k⌉ for k = 1, 2, 4 …);
///   ``size(forBase:currentBase:)`` keeps that fraction through every geometry step.
/// - Metadata: the parsed ``metadata`` and, in ``encoded``, the metadata bytes as read, which
///   JPEG output writes back unchanged.
public struct GainMap: Sendable {
    /// The map's pixels.
    public let pixels: PixelBuffer
    /// 1 for a map applied equally to red, green and blue (stored as grey), 3 for one per channel.
    public let channelCount: Int
    /// The gain-map values.
    public let metadata: GainMapMetadata
    /// The metadata bytes as the source carried them.
    public let encoded: EncodedGainMapMetadata

    public init(pixels: PixelBuffer, channelCount: Int, metadata: GainMapMetadata, encoded: EncodedGainMapMetadata = .init()) {
        self.pixels = pixels
        self.channelCount = channelCount == 1 ? 1 : 3
        self.metadata = metadata
        self.encoded = encoded
    }

    /// The map's size in pixels.
    public var pixelSize: PixelSize { PixelSize(width: pixels.width, height: pixels.height) }

    /// A copy with other pixels (same channel count and metadata).
    public func replacing(pixels: PixelBuffer) -> GainMap {
        GainMap(pixels: pixels, channelCount: channelCount, metadata: metadata, encoded: encoded)
    }

    /// The map's size for a base of `newBase` pixels, when it is now ``pixelSize`` for a base of
    /// `currentBase`: per side ⌈new / k⌉ when the map is a whole fraction 1/k of the base (as
    /// libultrahdr sizes maps), else the same ratio rounded; at least 1.
    public func size(forBase newBase: PixelSize, currentBase: PixelSize) -> PixelSize {
        Self.mapSize(forBase: newBase, base: currentBase, map: pixelSize)
    }

    /// ``size(forBase:currentBase:)`` for a map of `map` pixels over a base of `base`.
    public static func mapSize(forBase newBase: PixelSize, base: PixelSize, map: PixelSize) -> PixelSize {
        PixelSize(width: side(newBase.width, base: base.width, map: map.width), height: side(newBase.height, base: base.height, map: map.height))
    }

    /// The whole factor `k` such that `map == ⌈base / k⌉` (or `⌊base / k⌋`), if any.
    public static func integerScale(base: Int, map: Int) -> Int? {
        guard base > 0, map > 0, map <= base else { return nil }
        let k = max(1, Int((Double(base) / Double(map)).rounded()))
        return (base + k - 1) / k == map || base / k == map ? k : nil
    }

    static func side(_ newBase: Int, base: Int, map: Int) -> Int {
        if map == base { return max(1, newBase) }
        if let k = integerScale(base: base, map: map) { return max(1, (newBase + k - 1) / k) }
        return max(1, Int((Double(newBase) * Double(map) / Double(max(base, 1))).rounded()))
    }

    /// The neutral (gain 1) map pixel, for areas added around the base.
    public var neutralPixel: RGBA {
        func code(_ channel: Int) -> UInt8 {
            UInt8(min(255, max(0, (metadata.neutralValue(channel: channel) * 255).rounded())))
        }
        if channelCount == 1 || metadata.channels.count == 1 {
            let v = code(0)
            return RGBA(r: v, g: v, b: v)
        }
        return RGBA(r: code(0), g: code(1), b: code(2))
    }
}

/// Gain-map metadata bytes as a JPEG carried them, kept so that output writes them back
/// byte-identical when no value has to change.
public struct EncodedGainMapMetadata: Sendable, Hashable {
    /// The gain-map image's ISO 21496-1 block (after the segment name).
    public var iso21496: Data?
    /// The gain-map image's XMP packet (after the segment name).
    public var xmp: Data?
    /// The primary image's ISO 21496-1 version block.
    public var primaryISO21496: Data?

    public init(iso21496: Data? = nil, xmp: Data? = nil, primaryISO21496: Data? = nil) {
        self.iso21496 = iso21496
        self.xmp = xmp
        self.primaryISO21496 = primaryISO21496
    }
}
