import Foundation

/// Hand-built headers for the formats the corpus has no files of (BMP, ICO, TIFF).
enum HeaderFixtures {
    static func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
    static func le32(_ v: Int) -> [UInt8] { le16(v & 0xFFFF) + le16(v >> 16 & 0xFFFF) }
    static func be16(_ v: Int) -> [UInt8] { le16(v).reversed() }
    static func be32(_ v: Int) -> [UInt8] { le32(v).reversed() }

    /// A 24-bit BMP header with a BITMAPINFOHEADER (40 bytes); `height` may be negative (top-down).
    static func bmp(width: Int, height: Int) -> Data {
        let info = le32(40) + le32(width) + le32(Int(UInt32(bitPattern: Int32(height)))) + le16(1) + le16(24)
            + le32(0) + le32(0) + le32(2835) + le32(2835) + le32(0) + le32(0)
        let header = Array("BM".utf8) + le32(54) + le32(0) + le32(54)
        return Data(header + info + [0, 0, 0, 0])
    }

    /// A BMP with the old 12-byte BITMAPCOREHEADER.
    static func bmpCore(width: Int, height: Int) -> Data {
        let info = le32(12) + le16(width) + le16(height) + le16(1) + le16(24)
        return Data(Array("BM".utf8) + le32(26) + le32(0) + le32(26) + info + [0, 0, 0, 0])
    }

    /// An ICO directory with entries of the given byte sizes (0 = 256); no image data.
    static func ico(_ sizes: [(Int, Int)], embeddedPNG: (width: Int, height: Int)? = nil) -> Data {
        var bytes: [UInt8] = [0, 0, 1, 0] + le16(sizes.count)
        let dataStart = 6 + 16 * sizes.count
        for (index, (w, h)) in sizes.enumerated() {
            let isPNG = embeddedPNG != nil && index == 0
            bytes += [UInt8(w), UInt8(h), 0, 0] + le16(1) + le16(32) + le32(isPNG ? 33 : 0)
                + le32(isPNG ? dataStart : 0)
        }
        if let png = embeddedPNG {
            bytes += [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + be32(13) + Array("IHDR".utf8)
                + be32(png.width) + be32(png.height) + [8, 6, 0, 0, 0] + [0, 0, 0, 0]
        }
        return Data(bytes)
    }

    /// A TIFF with IFD0 holding width (LONG), height (SHORT) and orientation (SHORT).
    static func tiff(width: Int, height: Int, orientation: Int, bigEndian: Bool) -> Data {
        let u16 = bigEndian ? be16 : le16
        let u32 = bigEndian ? be32 : le32
        func entry(_ tag: Int, _ type: Int, _ value: Int) -> [UInt8] {
            let field = type == 3 ? u16(value) + [0, 0] : u32(value)
            return u16(tag) + u16(type) + u32(1) + field
        }
        let head: [UInt8] = (bigEndian ? Array("MM".utf8) : Array("II".utf8)) + u16(42) + u32(8)
        let ifd = u16(3) + entry(0x100, 4, width) + entry(0x101, 3, height) + entry(0x112, 3, orientation) + u32(0)
        return Data(head + ifd)
    }
}

