import Foundation

/// Apple's HDR gain map (an iPhone HEIC's auxiliary image `urn:com:apple:photo:2020:aux:hdrgainmap`)
/// restated as an ISO 21496-1 map (SPEC H-2), so that it travels and is written like a JPEG's.
///
/// Apple's map is one 8-bit channel holding a linear weight `w` encoded with the Rec. 709
/// transfer function; the HDR rendition of a linear base value `B` is
/// `B · (1 + (H − 1) · w)`, where `H` is the photo's headroom (``AppleHDRHeadroom``).
/// ISO 21496-1 describes a gain as `2^(min + (max − min) · v^(1/γ))` applied as
/// `(B + k_base) · G − k_alt`. With `min = 0`, `max = log2 H`, `γ = 1` and both offsets 0,
/// the two agree exactly when each map code `c` is rewritten to
/// `v = log2(1 + (H − 1) · w(c)) / log2 H`: a 256-entry table, applied once when the map is read.
/// The base headroom is 0 and the alternate headroom `log2 H`, so a display with the full
/// headroom shows Apple's rendition; at less, ISO's weighting of the gain in the log domain
/// applies (Apple's own renderer is not documented there).
public enum AppleGainMap {
    /// The auxiliary-image type of Apple's HDR gain map.
    public static let auxiliaryType = "urn:com:apple:photo:2020:aux:hdrgainmap"

    /// The ISO values for a map of headroom `headroom` (linear, greater than 1).
    public static func metadata(headroom: Double) -> GainMapMetadata {
        let stops = log2(headroom)
        return GainMapMetadata(
            channels: [.init(gainMapMin: 0, gainMapMax: stops, gamma: 1, baseOffset: 0, alternateOffset: 0)],
            baseHeadroom: 0, alternateHeadroom: stops)
    }

    /// The linear weight an Apple map code stands for (the inverse of Rec. 709's transfer function).
    public static func weight(code: UInt8) -> Double {
        let v = Double(code) / 255
        return v < 0.081 ? v / 4.5 : pow((v + 0.099) / 1.099, 1 / 0.45)
    }

    /// The ISO code (0…255) that stands for the same gain as Apple's `code` at `headroom`.
    public static func isoCode(_ code: UInt8, headroom: Double) -> UInt8 {
        let gain = 1 + (headroom - 1) * weight(code: code)
        let v = log2(gain) / log2(headroom)
        return UInt8(min(255, max(0, (v * 255).rounded())))
    }

    /// Apple's map `pixels` (grey, the first channel read) at `headroom` as an ISO gain map;
    /// `nil` when the headroom is not above 1 (the map then changes nothing).
    public static func gainMap(pixels: PixelBuffer, headroom: Double) -> GainMap? {
        guard headroom.isFinite, headroom > 1.0001 else { return nil }
        let table = (0...255).map { isoCode(UInt8($0), headroom: headroom) }
        let source = pixels.bytes
        let converted = PixelBuffer.make(width: pixels.width, height: pixels.height) { out in
            var i = 0
            while i < source.count {
                let v = table[Int(source[i])]
                out[i] = v
                out[i + 1] = v
                out[i + 2] = v
                out[i + 3] = 255
                i += 4
            }
        }
        return GainMap(pixels: converted, channelCount: 1, metadata: metadata(headroom: headroom))
    }
}
