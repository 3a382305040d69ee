import Foundation
import Testing
import WebImageCodecs
import WebImageCore
import WebImageTesting

@Suite("BMP and ICO decoding")
struct BMPICOTests {
    /// Opaque pixels in four colours (so they fit any palette).
    static let colors: [[UInt8]] = [[255, 0, 0, 255], [0, 255, 0, 255], [0, 0, 255, 255], [255, 255, 255, 255]]

    static func quadrants(width: Int = 7, height: Int = 5) -> PixelBuffer {
        PixelBuffer.make(width: width, height: height) { out in
            for y in 0..<height {
                for x in 0..<width {
                    let color = colors[(x < width / 2 ? 0 : 1) + (y < height / 2 ? 0 : 2)]
                    for c in 0..<4 { out[(y * width + x) * 4 + c] = color[c] }
                }
            }
        }
    }

    @Test("Given BMPs at every bit depth, bottom-up and top-down, then the pixels come back", arguments: [1, 4, 8, 16, 24, 32], [false, true])
    func bitDepths(bits: Int, topDown: Bool) throws {
        // 1 bit holds two colours: use the first two.
        let pixels = bits == 1
            ? PixelBuffer.make(width: 9, height: 3) { out in
                for i in 0..<27 { for c in 0..<4 { out[i * 4 + c] = Self.colors[i % 2][c] } }
            }
            : Self.quadrants()
        let palette = bits <= 8 ? Array(Self.colors.prefix(bits == 1 ? 2 : 4)) : []
        let fields: [UInt32]? = bits == 16 ? [0xF800, 0x07E0, 0x001F] : nil
        let dib = BMPFixture.dib(pixels, bits: bits, topDown: topDown, palette: palette, bitFields: fields)
        let data = BMPFixture.bmp(dib, paletteAndMasks: palette.count * 4)
        let image = try CodersManager.shared.decode(data, options: .default)
        #expect(image.format == .bmp)
        #expect(image.pixels.bytes == pixels.bytes, "\(bits) bits, top-down \(topDown)")
        #expect(!image.hasAlpha)
        #expect(try CodersManager.shared.readMetadata(data).pixelSize == image.pixelSize)
    }

    @Test("Given a 32-bit BMP with an alpha bit field, then alpha is kept; with all-zero alpha bytes, the image is opaque")
    func alpha() throws {
        let translucent = PixelBuffer.make(width: 4, height: 2) { out in
            for i in 0..<8 { out[i * 4] = 200; out[i * 4 + 1] = UInt8(i * 30); out[i * 4 + 2] = 10; out[i * 4 + 3] = UInt8(i * 32 + 3) }
        }
        let withAlpha = BMPFixture.bmp(BMPFixture.dib(translucent, bits: 32, bitFields: [0xFF_0000, 0xFF00, 0xFF, 0xFF00_0000]))
        let decoded = try CodersManager.shared.decode(withAlpha, options: .default)
        #expect(decoded.pixels.bytes == translucent.bytes && decoded.hasAlpha)
        let zeroAlpha = PixelBuffer.make(width: 4, height: 2) { out in
            for i in 0..<8 { out[i * 4] = 9; out[i * 4 + 1] = 8; out[i * 4 + 2] = 7; out[i * 4 + 3] = 0 }
        }
        let opaque = try CodersManager.shared.decode(BMPFixture.bmp(BMPFixture.dib(zeroAlpha, bits: 32)), options: .default)
        #expect(!opaque.hasAlpha && opaque.pixels.bytes.enumerated().allSatisfy { $0.offset % 4 != 3 || $0.element == 255 })
    }

    @Test("Given an icon with a small bitmap entry and a larger PNG entry, then the PNG is shown; a bitmap entry's AND mask makes pixels transparent")
    func icons() throws {
        let small = Self.quadrants(width: 8, height: 8)
        let mask = (0..<8).map { y in (0..<8).map { x in x == y } }
        let smallDIB = BMPFixture.dib(small, bits: 24, heightFactor: 2, mask: mask)
        let large = Self.quadrants(width: 32, height: 32)
        let png = [UInt8](try PNGCoder().encode(Image(pixels: large), format: .png, options: .default))
        let both = BMPFixture.ico([(8, 8, 24, smallDIB), (32, 32, 32, png)])
        let shown = try CodersManager.shared.decode(both, options: .default)
        #expect(shown.format == .ico && shown.pixelSize == PixelSize(width: 32, height: 32))
        #expect(shown.pixels.bytes == large.bytes)
        #expect(try CodersManager.shared.readMetadata(both).pixelSize == PixelSize(width: 32, height: 32))

        let masked = try CodersManager.shared.decode(BMPFixture.ico([(8, 8, 24, smallDIB)]), options: .default)
        #expect(masked.hasAlpha)
        for y in 0..<8 {
            for x in 0..<8 {
                let alpha = masked.pixels.bytes[(y * 8 + x) * 4 + 3]
                #expect(alpha == (x == y ? 0 : 255), "(\(x), \(y))")
            }
        }
    }

    @Test("Given a cursor with a 1-bit and a 32-bit image of one size, then the 32-bit one is shown (a cursor's directory holds a hotspot, not a depth); so for an icon whose directory says 0 bits")
    func deepestEntryOfCursorsAndZeroBitIcons() throws {
        let pixels = Self.quadrants(width: 8, height: 8)
        let noMask = Array(repeating: Array(repeating: false, count: 8), count: 8)
        let mono = PixelBuffer.make(width: 8, height: 8) { out in for i in 0..<64 { for c in 0..<4 { out[i * 4 + c] = Self.colors[i % 2][c] } } }
        let oneBit = BMPFixture.dib(mono, bits: 1, palette: Array(Self.colors.prefix(2)), heightFactor: 2, mask: noMask)
        let deep = BMPFixture.dib(pixels, bits: 32, heightFactor: 2, mask: noMask)
        let cursor = BMPFixture.ico([(8, 8, 1, oneBit), (8, 8, 32, deep)], cursorHotspot: (3, 3))
        #expect(try CodersManager.shared.decode(cursor, options: .default).pixels.bytes == pixels.bytes)
        let zeroBits = BMPFixture.ico([(8, 8, 0, oneBit), (8, 8, 0, deep)])
        #expect(try CodersManager.shared.decode(zeroBits, options: .default).pixels.bytes == pixels.bytes)
    }

    @Test("Given a 32-bit icon whose alpha bytes are all zero, then its AND mask gives the transparency")
    func thirtyTwoBitIconFallsBackToMask() throws {
        let opaque = PixelBuffer.make(width: 8, height: 8) { out in
            for i in 0..<64 { out[i * 4] = 10; out[i * 4 + 1] = 200; out[i * 4 + 2] = 30; out[i * 4 + 3] = 0 }
        }
        let mask = (0..<8).map { y in (0..<8).map { x in x < 2 || y == 7 } }
        let icon = BMPFixture.ico([(8, 8, 32, BMPFixture.dib(opaque, bits: 32, heightFactor: 2, mask: mask))])
        let image = try CodersManager.shared.decode(icon, options: .default)
        #expect(image.hasAlpha)
        for y in 0..<8 {
            for x in 0..<8 { #expect(image.pixels.bytes[(y * 8 + x) * 4 + 3] == (mask[y][x] ? 0 : 255), "(\(x), \(y))") }
        }
    }

    @Test("Given an icon whose directory says 0x0 (256) for a 300x20 PNG, then metadata reports the PNG's size, as decode does")
    func metadataFromTheImage() throws {
        let png = [UInt8](try PNGCoder().encode(Image(pixels: Self.quadrants(width: 300, height: 20)), format: .png, options: .default))
        let icon = BMPFixture.ico([(0, 0, 32, png)])
        let metadata = try CodersManager.shared.readMetadata(icon)
        #expect(metadata.format == .ico && metadata.pixelSize == PixelSize(width: 300, height: 20))
        #expect(try CodersManager.shared.decode(icon, options: .default).pixelSize == metadata.pixelSize)
        let bitmap = BMPFixture.ico([(0, 0, 24, BMPFixture.dib(Self.quadrants(width: 7, height: 5), bits: 24, heightFactor: 2))])
        #expect(try CodersManager.shared.readMetadata(bitmap).pixelSize == PixelSize(width: 7, height: 5))
    }

    /// A run-length bitmap (RLE8 with `bits` 8, RLE4 with 4) of `rows` (bottom row first, palette
    /// indices) written with runs, literals, a delta and end codes.
    static func runLength(width: Int, height: Int, bits: Int, data: [UInt8]) -> Data {
        var dib = BMPFixture.le32(40) + BMPFixture.le32(width) + BMPFixture.le32(height) + BMPFixture.le16(1) + BMPFixture.le16(bits)
        dib += BMPFixture.le32(bits == 8 ? 1 : 2) + BMPFixture.le32(data.count) + BMPFixture.le32(0) + BMPFixture.le32(0)
        dib += BMPFixture.le32(4) + BMPFixture.le32(0)
        for color in Self.colors { dib += [color[2], color[1], color[0], 0] }
        return BMPFixture.bmp(dib + data, paletteAndMasks: 16)
    }

    @Test("Given RLE8 and RLE4 bitmaps with runs, literals, a delta and end codes, then they decode, with skipped pixels transparent", arguments: [8, 4])
    func runLength(bits: Int) throws {
        // 6x3, bottom row first. Row 0: run of 3 × index 1, literal [2, 3, 0]; row 1: delta (2, 0)
        // skips two pixels, run of 4 × index 3; row 2: end of bitmap right away (all skipped).
        let data: [UInt8] = bits == 8
            ? [3, 1, 0, 3, 2, 3, 0, 0 /* pad */, 0, 0, /* EOL */ 0, 2, 2, 0, 4, 3, 0, 0, 0, 1]
            : [3, 0x11, 0, 3, 0x23, 0x00, 0, 0, /* EOL */ 0, 2, 2, 0, 4, 0x33, 0, 0, 0, 1]
        let image = try CodersManager.shared.decode(Self.runLength(width: 6, height: 3, bits: bits, data: data), options: .default)
        #expect(image.pixelSize == PixelSize(width: 6, height: 3) && image.hasAlpha)
        func pixel(_ x: Int, _ y: Int) -> [UInt8] { Array(image.pixels.bytes[(y * 6 + x) * 4..<(y * 6 + x) * 4 + 4]) }
        // Rows in the image are top-down: file row 0 is image row 2.
        #expect((0..<3).allSatisfy { pixel($0, 2) == Self.colors[1] })
        #expect([pixel(3, 2), pixel(4, 2), pixel(5, 2)] == [Self.colors[2], Self.colors[3], Self.colors[0]])
        #expect(pixel(0, 1)[3] == 0 && pixel(1, 1)[3] == 0)
        #expect((2..<6).allSatisfy { pixel($0, 1) == Self.colors[3] })
        #expect((0..<6).allSatisfy { pixel($0, 0)[3] == 0 })
        // Cut before the end-of-bitmap code: a typed error.
        #expect(throws: WebImageError.self) {
            try CodersManager.shared.decode(Self.runLength(width: 6, height: 3, bits: bits, data: Array(data.dropLast(4))), options: .default)
        }
    }

    @Test("Given an icon whose directory says 256 for both a 256x256 bitmap and a larger PNG, then the larger image is shown; a bitmap entry with a broken header fails metadata as decode does")
    func rankingByTheImagesOwnSize() throws {
        let bitmap = BMPFixture.dib(Self.quadrants(width: 256, height: 256), bits: 32, heightFactor: 2,
                                    mask: Array(repeating: Array(repeating: false, count: 256), count: 256))
        let large = Self.quadrants(width: 300, height: 280)
        let png = [UInt8](try PNGCoder().encode(Image(pixels: large), format: .png, options: .default))
        let icon = BMPFixture.ico([(0, 0, 32, bitmap), (0, 0, 32, png)])
        #expect(try CodersManager.shared.decode(icon, options: .default).pixelSize == PixelSize(width: 300, height: 280))
        #expect(try CodersManager.shared.readMetadata(icon).pixelSize == PixelSize(width: 300, height: 280))

        var broken = BMPFixture.dib(Self.quadrants(width: 8, height: 8), bits: 24, heightFactor: 2)
        broken.replaceSubrange(4..<8, with: BMPFixture.le32(-5))
        let brokenIcon = BMPFixture.ico([(8, 8, 24, broken)])
        #expect(throws: WebImageError.self) { try CodersManager.shared.readMetadata(brokenIcon) }
        #expect(throws: WebImageError.self) { try CodersManager.shared.decode(brokenIcon, options: .default) }
    }

    @Test("Given a declared size over the limit, then imageTooLarge before decoding; compressed bitmaps are unsupportedFormat")
    func limitsAndCompression() throws {
        var dib = BMPFixture.dib(Self.quadrants(), bits: 24)
        dib.replaceSubrange(4..<12, with: BMPFixture.le32(100_000) + BMPFixture.le32(100_000))
        #expect(performing: { try CodersManager.shared.decode(BMPFixture.bmp(dib), options: .default) }, throws: { error in
            if case WebImageError.imageTooLarge = error { return true } else { return false }
        })
        var jpegInside = BMPFixture.dib(Self.quadrants(), bits: 8, palette: Self.colors)
        jpegInside.replaceSubrange(16..<20, with: BMPFixture.le32(4))
        #expect(performing: { try CodersManager.shared.decode(BMPFixture.bmp(jpegInside, paletteAndMasks: 16), options: .default) }, throws: { error in
            if case WebImageError.unsupportedFormat = error { return true } else { return false }
        })
    }

    @Test("Given every prefix and 300 seeded mutations of BMPs and icons, then decoding gives an image or a typed error, never a crash")
    func truncationsAndMutations() throws {
        let png = [UInt8](try PNGCoder().encode(Image(pixels: Self.quadrants(width: 16, height: 16)), format: .png, options: .default))
        let seeds: [[UInt8]] = [
            [UInt8](BMPFixture.bmp(BMPFixture.dib(Self.quadrants(), bits: 4, palette: Self.colors), paletteAndMasks: 16)),
            [UInt8](BMPFixture.bmp(BMPFixture.dib(Self.quadrants(), bits: 16, bitFields: [0xF800, 0x07E0, 0x001F]))),
            [UInt8](BMPFixture.bmp(BMPFixture.dib(Self.quadrants(), bits: 32, topDown: true))),
            [UInt8](Self.runLength(width: 6, height: 3, bits: 8, data: [3, 1, 0, 3, 2, 3, 0, 0, 0, 0, 0, 2, 2, 0, 4, 3, 0, 0, 0, 1])),
            [UInt8](Self.runLength(width: 6, height: 3, bits: 4, data: [3, 0x11, 0, 3, 0x23, 0x00, 0, 0, 0, 2, 2, 0, 4, 0x33, 0, 0, 0, 1])),
            [UInt8](BMPFixture.ico([(8, 8, 24, BMPFixture.dib(Self.quadrants(width: 8, height: 8), bits: 24, heightFactor: 2,
                mask: Array(repeating: Array(repeating: false, count: 8), count: 8))), (16, 16, 32, png)])),
        ]
        func exercise(_ bytes: [UInt8]) {
            let data = Data(bytes)
            do {
                let image = try CodersManager.shared.decode(data, options: .default)
                #expect(image.pixels.bytes.count == image.width * image.height * 4)
            } catch {
                #expect(error is WebImageError, "\(error)")
            }
            _ = try? CodersManager.shared.readMetadata(data)
        }
        for bytes in seeds {
            for end in 0..<bytes.count { exercise(Array(bytes[..<end])) }
        }
        var generator = SeededRandom(seed: 0xB3F)
        for round in 0..<300 {
            var bytes = seeds[round % seeds.count]
            generator.mutate(&bytes)
            exercise(bytes)
        }
    }
}
