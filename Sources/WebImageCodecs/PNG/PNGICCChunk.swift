import Foundation
import WebImageCore

/// Writes an `iCCP` chunk into an encoded PNG (G-3), right after `IHDR` (the chunk must
/// come before `PLTE` and `IDAT`).
///
/// The profile is stored in a zlib stream of *stored* (uncompressed) deflate blocks, which
/// every inflater reads: the module map does not import zlib, and profiles are a few
/// kilobytes, so compressing them would save little.
enum PNGICCChunk {
    /// The profile name written (PNG requires 1–79 Latin-1 characters).
    static let profileName = "ICC Profile"

    /// `png` with an `iCCP` chunk holding `profile` after its `IHDR`.
    static func embed(_ profile: Data, in png: Data) -> Data {
        // Signature (8) + IHDR chunk (4 + 4 + 13 + 4).
        let afterHeader = 33
        guard png.count > afterHeader else { return png }
        var payload = Array(profileName.utf8) + [0, 0]  // name, terminator, compression method 0
        payload.append(contentsOf: storedZlib(profile))
        var writer = PNGChunkWriter(capacity: payload.count + 12, signature: false)
        writer.append(PNGColorChunks.iccp, payload)
        var out = Data(png.prefix(afterHeader))
        out.append(contentsOf: writer.bytes)
        out.append(png.dropFirst(afterHeader))
        return out
    }

    /// `data` as a zlib stream of stored deflate blocks (RFC 1950, RFC 1951 §3.2.4).
    static func storedZlib(_ data: Data) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]  // deflate, 32 KiB window, no preset dictionary
        let bytes = [UInt8](data)
        var offset = 0
        repeat {
            let length = min(65_535, bytes.count - offset)
            let isLast = offset + length == bytes.count
            out.append(isLast ? 1 : 0)
            out.append(contentsOf: [UInt8(length & 0xFF), UInt8(length >> 8)])
            out.append(contentsOf: [UInt8(~length & 0xFF), UInt8((~length >> 8) & 0xFF)])
            out.append(contentsOf: bytes[offset..<(offset + length)])
            offset += length
        } while offset < bytes.count
        var a: UInt32 = 1
        var b: UInt32 = 0
        for byte in bytes {
            a = (a + UInt32(byte)) % 65_521
            b = (b + a) % 65_521
        }
        let adler = b << 16 | a
        out.append(contentsOf: [UInt8(adler >> 24), UInt8((adler >> 16) & 0xFF), UInt8((adler >> 8) & 0xFF), UInt8(adler & 0xFF)])
        return out
    }
}
