import CSPNG
import Foundation
import WebImageCore

/// The colour description of a PNG (G-1), from the chunks before the first `IDAT`, with
/// the precedence of the PNG specification (third edition) and browsers:
/// `cICP` > `iCCP` > `sRGB` > `gAMA` (with `cHRM` when present).
///
/// Chunk headers are walked with the coder's own bounded scanner; the compressed `iCCP`
/// profile is inflated by libspng, under the decode's chunk limits.
enum PNGColorChunks {
    static let cicp = PNGChunkType("cICP")
    static let iccp = PNGChunkType("iCCP")
    static let srgb = PNGChunkType("sRGB")
    static let gama = PNGChunkType("gAMA")
    static let chrm = PNGChunkType("cHRM")

    /// The description of the PNG in `bytes`, `nil` for an untagged file (or when the chunks
    /// are unreadable: the pixels are then shown as stored).
    static func read(_ bytes: UnsafeRawBufferPointer, limits: DecodeLimits) -> ColorProfile? {
        guard let (chunks, _) = try? PNGChunkScanner.chunks(in: bytes, stoppingAt: .idat) else { return nil }
        func chunk(_ type: PNGChunkType) -> PNGChunk? {
            chunks.first { $0.type == type && $0.hasValidCRC(in: bytes) }
        }
        if let c = chunk(cicp), c.data.count == 4 {
            let d = c.data.lowerBound
            return ColorProfile(kind: .cicp(CICP(
                colorPrimaries: UInt16(bytes[d]), transferCharacteristics: UInt16(bytes[d + 1]),
                matrixCoefficients: UInt16(bytes[d + 2]), fullRange: bytes[d + 3] != 0)))
        }
        if chunk(iccp) != nil, let profile = embeddedProfile(bytes, limits: limits) {
            return profile
        }
        if chunk(srgb) != nil { return ColorProfile(kind: .sRGB) }
        if let g = chunk(gama), g.data.count == 4 {
            let gamma = Double(PNGChunkScanner.uint32(bytes, at: g.data.lowerBound)) / 100_000
            guard gamma > 0 else { return nil }
            var chromaticities: Chromaticities?
            if let c = chunk(chrm), c.data.count == 32 {
                let v = (0..<8).map { Double(PNGChunkScanner.uint32(bytes, at: c.data.lowerBound + $0 * 4)) / 100_000 }
                chromaticities = Chromaticities(
                    whiteX: v[0], whiteY: v[1], redX: v[2], redY: v[3], greenX: v[4], greenY: v[5], blueX: v[6], blueY: v[7])
            }
            return ColorProfile(kind: .gamma(gamma, chromaticities: chromaticities))
        }
        return nil
    }

    /// The `iCCP` profile, inflated by libspng; `nil` when it is unreadable.
    private static func embeddedProfile(_ bytes: UnsafeRawBufferPointer, limits: DecodeLimits) -> ColorProfile? {
        let data = try? SPNGDecoding.withContext(bytes, limits: limits) { ctx -> Data? in
            var iccp = spng_iccp()
            guard spng_get_iccp(ctx, &iccp) == 0, let profile = iccp.profile, iccp.profile_len > 0 else { return nil }
            return Data(bytes: profile, count: iccp.profile_len)
        }
        return data.flatMap { $0 }.flatMap { ColorProfile(icc: $0) }.flatMap { $0.colorModel == .cmyk ? nil : $0 }
    }
}
