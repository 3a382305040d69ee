import Foundation
import WebImageCore

/// Writes a `cICP` chunk (PNG Third Edition) into an encoded PNG, right after `IHDR`: the four
/// code points of a CICP colour description, so that PQ and HLG pictures (which have no ICC
/// equivalent) keep their transfer.
enum PNGCICPChunk {
    /// `png` with a `cICP` chunk holding `cicp` after its `IHDR`. Code points above 255 cannot
    /// be stored: `png` is returned as it is.
    static func embed(_ cicp: CICP, in png: Data) -> Data {
        // Signature (8) + IHDR chunk (4 + 4 + 13 + 4).
        let afterHeader = 33
        guard png.count > afterHeader, cicp.colorPrimaries <= 255, cicp.transferCharacteristics <= 255,
            cicp.matrixCoefficients <= 255
        else { return png }
        let payload: [UInt8] = [
            UInt8(cicp.colorPrimaries), UInt8(cicp.transferCharacteristics), UInt8(cicp.matrixCoefficients),
            cicp.fullRange ? 1 : 0,
        ]
        var writer = PNGChunkWriter(capacity: payload.count + 12, signature: false)
        writer.append(PNGColorChunks.cicp, payload)
        var out = Data(png.prefix(afterHeader))
        out.append(contentsOf: writer.bytes)
        out.append(png.dropFirst(afterHeader))
        return out
    }
}
