import Foundation
import WebImageCore

/// BMP and ICO files written for tests and fuzz seeds (the corpus has none), in the layouts
/// real writers use.
public enum BMPFixture {
    public static func le16(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8((value >> 8) & 0xFF)] }
    public static func le32(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }

    /// A DIB (header, masks, palette, rows) of `pixels` at `bits` per pixel. Palette formats
    /// index `palette` (RGBA) by the position of each pixel's colour in it.
    public static func dib(
        _ pixels: PixelBuffer, bits: Int, topDown: Bool = false, palette: [[UInt8]] = [], bitFields: [UInt32]? = nil,
        heightFactor: Int = 1, mask: [[Bool]]? = nil
    ) -> [UInt8] {
        let width = pixels.width, height = pixels.height
        let headerSize = bitFields != nil ? 108 : 40
        var out = le32(headerSize) + le32(width) + le32((topDown ? -1 : 1) * height * heightFactor)
        out += le16(1) + le16(bits) + le32(bitFields != nil ? 3 : 0) + le32(0) + le32(2835) + le32(2835)
        out += le32(palette.count) + le32(0)
        if let fields = bitFields {
            for field in fields { out += le32(Int(field)) }
            out += [UInt8](repeating: 0, count: headerSize - 40 - fields.count * 4)
        }
        for color in palette { out += [color[2], color[1], color[0], 0] }
        let stride = ((width * bits + 31) / 32) * 4
        let rows = topDown ? Array(0..<height) : Array((0..<height).reversed())
        for y in rows {
            var row = [UInt8](repeating: 0, count: stride)
            for x in 0..<width {
                let i = (y * width + x) * 4
                let rgba = Array(pixels.bytes[i..<i + 4])
                switch bits {
                case 1, 4, 8:
                    let index = palette.firstIndex { Array($0.prefix(3)) == Array(rgba.prefix(3)) } ?? 0
                    let perByte = 8 / bits
                    row[x / perByte] |= UInt8(index << (8 - bits * (x % perByte + 1)))
                case 16:  // 5-6-5 bit fields
                    let value = Int(rgba[0] >> 3) << 11 | Int(rgba[1] >> 2) << 5 | Int(rgba[2] >> 3)
                    row[x * 2] = UInt8(value & 0xFF)
                    row[x * 2 + 1] = UInt8(value >> 8)
                case 24:
                    row[x * 3] = rgba[2]
                    row[x * 3 + 1] = rgba[1]
                    row[x * 3 + 2] = rgba[0]
                default:
                    row[x * 4] = rgba[2]
                    row[x * 4 + 1] = rgba[1]
                    row[x * 4 + 2] = rgba[0]
                    row[x * 4 + 3] = rgba[3]
                }
            }
            out += row
        }
        if let mask {
            let maskStride = ((width + 31) / 32) * 4
            for y in rows {
                var row = [UInt8](repeating: 0, count: maskStride)
                for x in 0..<width where mask[y][x] { row[x / 8] |= 0x80 >> UInt8(x % 8) }
                out += row
            }
        }
        return out
    }

    /// A BMP file around `dib`.
    public static func bmp(_ dib: [UInt8], paletteAndMasks: Int = 0) -> Data {
        let headerSize = Int(dib[0]) | Int(dib[1]) << 8
        let pixelOffset = 14 + headerSize + paletteAndMasks
        return Data([0x42, 0x4D] + le32(14 + dib.count) + le32(0) + le32(pixelOffset) + dib)
    }

    /// An ICO file (or with `cursorHotspot`, a CUR file, whose bytes 4…7 are the hotspot) with
    /// `entries` (width, height, bits, payload).
    public static func ico(_ entries: [(width: Int, height: Int, bits: Int, payload: [UInt8])], cursorHotspot: (Int, Int)? = nil) -> Data {
        var out = le16(0) + le16(cursorHotspot == nil ? 1 : 2) + le16(entries.count)
        var offset = 6 + entries.count * 16
        for entry in entries {
            out += [UInt8(entry.width & 0xFF), UInt8(entry.height & 0xFF), 0, 0]
            out += cursorHotspot.map { le16($0.0) + le16($0.1) } ?? (le16(1) + le16(entry.bits))
            out += le32(entry.payload.count) + le32(offset)
            offset += entry.payload.count
        }
        for entry in entries { out += entry.payload }
        return Data(out)
    }
}
