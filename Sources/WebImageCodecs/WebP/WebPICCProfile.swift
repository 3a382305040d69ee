import CWebP
import Foundation
import WebImageCore

/// The ICC profile of an extended (`VP8X`) WebP file's `ICCP` chunk (G-1), read from the
/// RIFF chunks without libwebp. The walk is bounded by the data: every chunk size is checked
/// against what remains.
enum WebPICCProfile {
    /// The `VP8X` flag bit saying the file carries an `ICCP` chunk.
    static let iccFlag: UInt8 = 0x20

    /// The profile in `data`, `nil` when there is none (or it is not a readable ICC profile).
    static func read(_ data: Data) -> ColorProfile? {
        let bytes: Data? = data.withUnsafeBytes { raw in
            let b = HeaderBytes(raw)
            guard b.matches("RIFF", at: 0), b.matches("WEBP", at: 8), b.matches("VP8X", at: 12),
                (b.u8(20) ?? 0) & Int(iccFlag) != 0
            else { return nil }
            var offset = 12
            while let size = b.u32le(offset + 4) {
                let payload = offset + 8
                guard let chunk = b.slice(payload, size) else { return nil }
                if b.matches("ICCP", at: offset) { return Data(chunk.raw) }
                // Image data comes after the ICCP chunk (the container's required order).
                if b.matches("VP8 ", at: offset) || b.matches("VP8L", at: offset) || b.matches("ANIM", at: offset) {
                    return nil
                }
                offset = payload + size + (size & 1)
            }
            return nil
        }
        return bytes.flatMap { ColorProfile(icc: $0) }.flatMap { $0.colorModel == .cmyk ? nil : $0 }
    }
}

extension WebPICCProfile {
    /// `webp` with `profile` in an `ICCP` chunk (libwebpmux rewrites the file as an extended
    /// `VP8X` one with the ICC flag set).
    /// - Throws: ``/WebImageCore/WebImageError/encodingFailed(reason:)`` when libwebpmux fails.
    static func embed(_ profile: Data, in webp: Data) throws -> Data {
        try webp.withUnsafeBytes { image in
            try profile.withUnsafeBytes { icc in
                var bitstream = WebPData(bytes: image.bindMemory(to: UInt8.self).baseAddress, size: image.count)
                guard let mux = WebPMuxCreate(&bitstream, 0) else {
                    throw WebImageError.encodingFailed(reason: "WebP: could not open the file to add its ICC profile")
                }
                defer { WebPMuxDelete(mux) }
                var chunk = WebPData(bytes: icc.bindMemory(to: UInt8.self).baseAddress, size: icc.count)
                var assembled = WebPData()
                defer { WebPDataClear(&assembled) }
                guard WebPMuxSetChunk(mux, "ICCP", &chunk, 1) == WEBP_MUX_OK,
                    WebPMuxAssemble(mux, &assembled) == WEBP_MUX_OK, let bytes = assembled.bytes
                else {
                    throw WebImageError.encodingFailed(reason: "WebP: could not add the ICC profile")
                }
                return Data(bytes: bytes, count: assembled.size)
            }
        }
    }
}
