import Foundation

/// Writes 16-bit PNGs for tests, with chunks of the test's choosing (`cICP`, `iCCP`, …) after
/// `IHDR`: independent of the library's PNG coder (zlib stored blocks, no compression), so it can
/// check that coder.
public enum WidePNGWriter {
    /// A 16-bit PNG of `width` × `height` pixels.
    /// - Parameters:
    ///   - width: pixels a row.
    ///   - height: rows.
    ///   - channels: 3 (RGB) or 4 (RGBA).
    ///   - samples: row by row, `channels` values a pixel (3: RGB, colour type 2; 4: RGBA,
    ///     colour type 6), each 0…65535.
    ///   - chunks: ancillary chunks (type, data) written after `IHDR`, in order.
    /// - Returns: the file.
    public static func png(
        width: Int, height: Int, channels: Int, samples: [UInt16], chunks: [(type: String, data: [UInt8])] = []
    ) -> Data {
        precondition(channels == 3 || channels == 4, "RGB or RGBA")
        precondition(samples.count == width * height * channels, "one value a channel")
        var file: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        var ihdr = bigEndian(UInt32(width)) + bigEndian(UInt32(height))
        ihdr += [16, channels == 4 ? 6 : 2, 0, 0, 0]
        file += chunk("IHDR", ihdr)
        for extra in chunks { file += chunk(extra.type, extra.data) }
        var raw: [UInt8] = []
        raw.reserveCapacity(height * (1 + width * channels * 2))
        for y in 0..<height {
            raw.append(0)  // filter: none
            for value in samples[(y * width * channels)..<((y + 1) * width * channels)] {
                raw.append(UInt8(value >> 8))
                raw.append(UInt8(value & 0xFF))
            }
        }
        file += chunk("IDAT", zlibStored(raw))
        file += chunk("IEND", [])
        return Data(file)
    }

    /// The `cICP` chunk data for the code points (full range).
    public static func cicp(primaries: UInt8, transfer: UInt8, matrix: UInt8 = 0) -> (type: String, data: [UInt8]) {
        ("cICP", [primaries, transfer, matrix, 1])
    }

    private static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typed = Array(type.utf8) + data
        return bigEndian(UInt32(data.count)) + typed + bigEndian(CRC32.checksum(typed))
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }

    /// `bytes` as a zlib stream of stored (uncompressed) deflate blocks.
    private static func zlibStored(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let length = min(65_535, bytes.count - offset)
            let final: UInt8 = offset + length == bytes.count ? 1 : 0
            out += [final, UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8((~length >> 8) & 0xFF)]
            out += bytes[offset..<(offset + length)]
            offset += length
        } while offset < bytes.count
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in bytes {
            a = (a + UInt32(byte)) % 65_521
            b = (b + a) % 65_521
        }
        return out + bigEndian(b << 16 | a)
    }
}
