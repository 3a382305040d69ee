import CTIFF
import Foundation
import Testing
import WebImageCodecs
import WebImageCore
import WebImageTesting

/// TIFF variants written by libtiff in the test, decoded by ``TIFFCoder`` and compared with the
/// pixels the test put in (exact for lossless variants).
@Suite("TIFF decoding")
struct TIFFDecodeTests {
    static let width = 48
    static let height = 32

    /// A smooth RGBA pattern: red across, green down, blue diagonal, alpha in bands (never 0).
    static func pattern(alpha: Bool) -> [RGBA] {
        (0..<height).flatMap { y in
            (0..<width).map { x in
                RGBA(
                    r: UInt8(x * 255 / (width - 1)), g: UInt8(y * 255 / (height - 1)), b: UInt8((x + y) * 255 / (width + height - 2)),
                    a: alpha ? UInt8(40 + (x / 8) * 43) : 255)
            }
        }
    }

    static func buffer(_ pixels: [RGBA], width: Int = width, height: Int = height) -> PixelBuffer {
        PixelBuffer(width: width, height: height, bytes: pixels.flatMap { [$0.r, $0.g, $0.b, $0.a] })
    }

    static func rgbPage(compression: Int32 = COMPRESSION_NONE, tile: Int? = nil, planar: Bool = false) -> TIFFTestPage {
        TIFFTestPage(
            width: width, height: height, compression: compression, tileSize: tile, planarSeparate: planar,
            samples: pattern(alpha: false).flatMap { [$0.r, $0.g, $0.b] })
    }

    /// Premultiplies, for comparing alpha images independently of rounding in un-premultiplying.
    static func premultiplied(_ buffer: PixelBuffer) -> PixelBuffer {
        var bytes = buffer.bytes
        for i in stride(from: 0, to: bytes.count, by: 4) {
            let a = Int(bytes[i + 3])
            for c in i..<i + 3 { bytes[c] = UInt8((Int(bytes[c]) * a + 127) / 255) }
        }
        return PixelBuffer(width: buffer.width, height: buffer.height, bytes: bytes)
    }

    static func decode(_ pages: [TIFFTestPage], options: DecodeOptions = .default) throws -> Image {
        let data = try TIFFTestWriter.write(pages)
        #expect(TIFFCoder().canDecode(data))
        return try TIFFCoder().decode(data, options: options)
    }

    static func expectEqual(_ image: Image, _ expected: PixelBuffer, tolerance: Int = 0, _ what: String) throws {
        let difference = try #require(PixelDifference.between(image.pixels, expected), "\(what): size \(image.pixelSize)")
        #expect(difference.maxChannelDifference <= tolerance, "\(what): \(difference)")
    }

    @Test(
        "Given 8-bit RGB in every lossless compression, strips, tiles and planes, then pixels are exact",
        arguments: [
            ("none", COMPRESSION_NONE, nil, false), ("LZW", COMPRESSION_LZW, nil, false),
            ("Deflate", COMPRESSION_ADOBE_DEFLATE, nil, false), ("PackBits", COMPRESSION_PACKBITS, nil, false),
            ("LZW tiles", COMPRESSION_LZW, 16, false), ("Deflate tiles", COMPRESSION_ADOBE_DEFLATE, 32, false),
            ("planar", COMPRESSION_LZW, nil, true),
        ] as [(String, Int32, Int?, Bool)])
    func losslessRGB(name: String, compression: Int32, tile: Int?, planar: Bool) throws {
        let image = try Self.decode([Self.rgbPage(compression: compression, tile: tile, planar: planar)])
        #expect(image.format == .tiff && !image.hasAlpha)
        try Self.expectEqual(image, Self.buffer(Self.pattern(alpha: false)), name)
    }

    @Test("Given RGBA with unassociated and associated alpha, then straight alpha comes out", arguments: [false, true])
    func alpha(associated: Bool) throws {
        let source = Self.pattern(alpha: true)
        let samples = source.flatMap { p -> [UInt8] in
            guard associated else { return [p.r, p.g, p.b, p.a] }
            let a = Int(p.a)
            return [UInt8((Int(p.r) * a + 127) / 255), UInt8((Int(p.g) * a + 127) / 255), UInt8((Int(p.b) * a + 127) / 255), p.a]
        }
        let page = TIFFTestPage(
            width: Self.width, height: Self.height, samplesPerPixel: 4, compression: COMPRESSION_LZW,
            extraSample: associated ? EXTRASAMPLE_ASSOCALPHA : EXTRASAMPLE_UNASSALPHA, samples: samples)
        let image = try Self.decode([page])
        #expect(image.hasAlpha)
        let expected = Self.buffer(source)
        let difference = try #require(PixelDifference.between(Self.premultiplied(image.pixels), Self.premultiplied(expected)))
        #expect(difference.maxChannelDifference <= 1, "\(difference)")
        // Straight colour, not premultiplied: an opaque-ish band keeps its colour closely.
        #expect(PixelDifference.between(image.pixels, expected)!.psnr >= 45)
    }

    @Test(
        "Given 16-bit grey with unassociated or associated alpha, in strips or tiles, then the alpha is kept (not drawn opaque)",
        arguments: [(false, nil), (true, nil), (false, 16), (true, 16)] as [(Bool, Int?)])
    func greyAlpha16(associated: Bool, tile: Int?) throws {
        var samples: [UInt8] = []
        var expected: [RGBA] = []
        for y in 0..<Self.height {
            for x in 0..<Self.width {
                let grey = (x * 1361 + y * 977) % 65536
                let alpha = x == 0 ? 0 : 8192 + (x * 1200) % 57000
                let stored = associated ? (grey * alpha + 32767) / 65535 : grey
                for value in [stored, alpha] { withUnsafeBytes(of: UInt16(value)) { samples += $0 } }
                let level = alpha == 0 ? (associated ? 0 : (grey * 255 + 32767) / 65535) : (grey * 255 + 32767) / 65535
                expected.append(RGBA(r: UInt8(level), g: UInt8(level), b: UInt8(level), a: UInt8((alpha * 255 + 32767) / 65535)))
            }
        }
        let page = TIFFTestPage(
            width: Self.width, height: Self.height, bitsPerSample: 16, samplesPerPixel: 2, photometric: PHOTOMETRIC_MINISBLACK,
            compression: COMPRESSION_ADOBE_DEFLATE, extraSample: associated ? EXTRASAMPLE_ASSOCALPHA : EXTRASAMPLE_UNASSALPHA,
            tileSize: tile, rowsPerStrip: 5, samples: samples)
        let image = try Self.decode([page])
        #expect(image.hasAlpha)
        #expect(image.pixels.pixel(x: 0, y: 3).a == 0, "the alpha sample is read")
        // Associated alpha loses precision where it is low once un-premultiplied; compare premultiplied.
        let actual = associated ? Self.premultiplied(image.pixels) : image.pixels
        let reference = associated ? Self.premultiplied(Self.buffer(expected)) : Self.buffer(expected)
        let difference = try #require(PixelDifference.between(actual, reference))
        #expect(difference.maxChannelDifference <= 1, "\(difference)")
    }

    @Test("Given grey at 1, 2, 4, 8 and 16 bits, white-is-zero too, then levels map to 0…255", arguments: [1, 2, 4, 8, 16])
    func grey(bits: Int) throws {
        let levels = (1 << bits) - 1
        let values = (0..<Self.height).flatMap { y in (0..<Self.width).map { x in (x * 7 + y * 3) % (levels + 1) } }
        var samples: [UInt8] = []
        for y in 0..<Self.height {
            var row = [UInt8](repeating: 0, count: (Self.width * bits + 7) / 8)
            for x in 0..<Self.width {
                let v = values[y * Self.width + x]
                if bits == 16 {
                    withUnsafeBytes(of: UInt16(v)) { row[x * 2] = $0[0]; row[x * 2 + 1] = $0[1] }
                } else {
                    let bit = x * bits
                    row[bit / 8] |= UInt8(v << (8 - bits - bit % 8))
                }
            }
            samples += row
        }
        for whiteIsZero in [false, true] where bits < 16 || !whiteIsZero {
            let stored = whiteIsZero ? samples.map { ~$0 } : samples
            let page = TIFFTestPage(
                width: Self.width, height: Self.height, bitsPerSample: bits, samplesPerPixel: 1,
                photometric: whiteIsZero ? PHOTOMETRIC_MINISWHITE : PHOTOMETRIC_MINISBLACK,
                compression: COMPRESSION_LZW, samples: stored)
            let image = try Self.decode([page])
            let expected = Self.buffer(values.map { v in
                let g = bits == 16 ? UInt8((v * 255 + 32767) / 65535) : UInt8(v * 255 / levels)
                return RGBA(r: g, g: g, b: g)
            })
            try Self.expectEqual(image, expected, tolerance: bits == 16 ? 1 : 0, "grey \(bits) bits, white-is-zero \(whiteIsZero)")
        }
    }

    @Test("Given bilevel data in CCITT G3 and G4, then pixels are exact", arguments: [COMPRESSION_CCITTFAX3, COMPRESSION_CCITTFAX4])
    func ccitt(compression: Int32) throws {
        let bits = (0..<Self.height).flatMap { y in (0..<Self.width).map { x in (x / 4 + y / 4) % 2 } }
        let samples = (0..<Self.height).flatMap { y in
            (0..<Self.width / 8).map { byte in
                (0..<8).reduce(UInt8(0)) { $0 | UInt8(bits[y * Self.width + byte * 8 + $1] << (7 - $1)) }
            }
        }
        let page = TIFFTestPage(
            width: Self.width, height: Self.height, bitsPerSample: 1, samplesPerPixel: 1, photometric: PHOTOMETRIC_MINISWHITE,
            compression: compression, samples: samples)
        let image = try Self.decode([page])
        try Self.expectEqual(image, Self.buffer(bits.map { $0 == 1 ? RGBA(r: 0, g: 0, b: 0) : RGBA(r: 255, g: 255, b: 255) }), "CCITT")
    }

    @Test("Given 16-bit RGB, then samples are scaled to 8 bits")
    func sixteenBitRGB() throws {
        let source = Self.pattern(alpha: false)
        let samples = source.flatMap { p in [p.r, p.g, p.b].flatMap { c in withUnsafeBytes(of: UInt16(c) * 257) { Array($0) } } }
        let page = TIFFTestPage(width: Self.width, height: Self.height, bitsPerSample: 16, compression: COMPRESSION_ADOBE_DEFLATE, samples: samples)
        try Self.expectEqual(try Self.decode([page]), Self.buffer(source), tolerance: 1, "16-bit RGB")
    }

    @Test("Given 4- and 8-bit palette images, then the colour map is applied", arguments: [4, 8])
    func palette(bits: Int) throws {
        let count = 1 << bits
        let colours = (0..<count).map { RGBA(r: UInt8($0 * 255 / (count - 1)), g: UInt8(255 - $0 * 255 / (count - 1)), b: UInt8(($0 * 37) % 256)) }
        let map = colours.map { UInt16($0.r) * 257 } + colours.map { UInt16($0.g) * 257 } + colours.map { UInt16($0.b) * 257 }
        let indices = (0..<Self.height).flatMap { y in (0..<Self.width).map { x in (x + y * 5) % count } }
        let samples = bits == 8 ? indices.map(UInt8.init) : stride(from: 0, to: indices.count, by: 2).map { UInt8(indices[$0] << 4 | indices[$0 + 1]) }
        let page = TIFFTestPage(
            width: Self.width, height: Self.height, bitsPerSample: bits, samplesPerPixel: 1, photometric: PHOTOMETRIC_PALETTE,
            compression: COMPRESSION_PACKBITS, colormap: map, samples: samples)
        try Self.expectEqual(try Self.decode([page]), Self.buffer(indices.map { colours[$0] }), "palette \(bits)")
    }

    @Test("Given CMYK with colour management ignored, then it becomes RGB as libtiff defines it")
    func cmyk() throws {
        let source = Self.pattern(alpha: false)
        let samples = source.flatMap { p in [255 - p.r, 255 - p.g, 255 - p.b, UInt8(p.b / 4)] }
        let page = TIFFTestPage(
            width: Self.width, height: Self.height, samplesPerPixel: 4, photometric: PHOTOMETRIC_SEPARATED, compression: COMPRESSION_LZW,
            samples: samples)
        let expected = source.map { p -> RGBA in
            let k = 255 - Int(p.b / 4)
            return RGBA(r: UInt8(k * Int(p.r) / 255), g: UInt8(k * Int(p.g) / 255), b: UInt8(k * Int(p.b) / 255))
        }
        var options = DecodeOptions()
        options.colorManagement = .ignore
        try Self.expectEqual(try Self.decode([page], options: options), Self.buffer(expected), tolerance: 1, "CMYK")
    }

    @Test("Given JPEG-compressed RGB and YCbCr (subsampled), then PSNR is at least 45 dB against the source", arguments: [false, true])
    func jpeg(ycbcr: Bool) throws {
        var page = Self.rgbPage(compression: COMPRESSION_JPEG)
        page.rowsPerStrip = 16
        if ycbcr {
            page.photometric = PHOTOMETRIC_YCBCR
            page.jpegYCbCrFromRGB = true
        }
        let image = try Self.decode([page])
        let difference = try #require(PixelDifference.between(image.pixels, Self.buffer(Self.pattern(alpha: false))))
        #expect(difference.psnr >= 45, "\(difference)")
    }

    @Test("Given an orientation tag, then pixels are turned, or kept and reported", arguments: [3, 6, 8])
    func orientation(value: Int) throws {
        var page = Self.rgbPage(compression: COMPRESSION_LZW)
        page.orientation = value
        let data = try TIFFTestWriter.write([page])
        let orientation = ImageOrientation(exifValue: value)
        let turned = try TIFFCoder().decode(data, options: .default)
        #expect(turned.orientation == .up)
        let difference = try #require(PixelDifference.between(turned.pixels, Self.buffer(Self.pattern(alpha: false)).applying(orientation)))
        #expect(difference.maxChannelDifference == 0)
        let stored = try TIFFCoder().decode(data, options: DecodeOptions(applyOrientation: false))
        #expect(stored.orientation == orientation)
        try Self.expectEqual(stored, Self.buffer(Self.pattern(alpha: false)), "stored")
        let metadata = try TIFFCoder().readMetadata(data)
        #expect(metadata.orientation == orientation && metadata.pixelSize == PixelSize(width: Self.width, height: Self.height))
    }

    /// Three pages: red, a smaller green one, blue; then a reduced-resolution copy (not a page).
    static func multiPage() throws -> Data {
        func solid(_ c: RGBA, _ w: Int, _ h: Int) -> TIFFTestPage {
            TIFFTestPage(width: w, height: h, compression: COMPRESSION_LZW, samples: Array(repeating: [c.r, c.g, c.b], count: w * h).flatMap { $0 })
        }
        var reduced = solid(RGBA(r: 9, g: 9, b: 9), 12, 8)
        reduced.subfileType = UInt32(FILETYPE_REDUCEDIMAGE)
        return try TIFFTestWriter.write([
            solid(RGBA(r: 255, g: 0, b: 0), 40, 20), solid(RGBA(r: 0, g: 255, b: 0), 20, 20), solid(RGBA(r: 0, g: 0, b: 255), 40, 20), reduced,
        ])
    }

    @Test("Given a multi-page TIFF, then pages are frames; firstFrameOnly and the animated source agree")
    func pages() throws {
        let data = try Self.multiPage()
        let coder = TIFFCoder()
        let image = try coder.decode(data, options: .default)
        try #require(image.frames.count == 3 && image.pixelSize == PixelSize(width: 40, height: 20))
        #expect(image.frames[0].pixels.pixel(x: 20, y: 10) == RGBA(r: 255, g: 0, b: 0))
        // The smaller green page is centred: transparent sides.
        #expect(image.frames[1].pixels.pixel(x: 20, y: 10) == RGBA(r: 0, g: 255, b: 0))
        #expect(image.frames[1].pixels.pixel(x: 2, y: 10).a == 0)
        #expect(image.frames[2].pixels.pixel(x: 20, y: 10) == RGBA(r: 0, g: 0, b: 255))
        let first = try coder.decode(data, options: DecodeOptions(firstFrameOnly: true))
        #expect(first.frames.count == 1)
        let metadata = try coder.readMetadata(data)
        #expect(metadata.frameCount == 3 && metadata.isAnimated)
        #expect(coder.isAnimated(data))
        let source = try coder.makeAnimatedSource(data, options: .default)
        #expect(source.frameCount == 3)
        #expect(try source.frame(at: 2).pixel(x: 0, y: 0) == RGBA(r: 0, g: 0, b: 255))
        #expect(try source.frame(at: 0).pixel(x: 0, y: 0) == RGBA(r: 255, g: 0, b: 0))
        #expect(throws: WebImageError.self) { try source.frame(at: 3) }
    }

    @Test("Given limits, then pixel and page limits are checked from the directories")
    func limits() throws {
        let data = try TIFFTestWriter.write([Self.rgbPage()])
        var small = DecodeLimits()
        small.maxPixelCount = Self.width * Self.height - 1
        #expect(throws: WebImageError.self) { try TIFFCoder().decode(data, options: DecodeOptions(limits: small)) }
        let pages = try Self.multiPage()
        var twoPages = DecodeLimits()
        twoPages.maxFrameCount = 2
        do {
            _ = try TIFFCoder().decode(pages, options: DecodeOptions(limits: twoPages))
            Issue.record("three pages decoded under a two-page limit")
        } catch WebImageError.imageTooLarge {}
        #expect(try TIFFCoder().decode(pages, options: DecodeOptions(firstFrameOnly: true, limits: twoPages)).frames.count == 1)
    }

    @Test("Given a thumbnail size, then the page is decoded and reduced to fit")
    func thumbnail() throws {
        let data = try TIFFTestWriter.write([Self.rgbPage(compression: COMPRESSION_LZW, tile: 16)])
        let image = try TIFFCoder().decode(data, options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 24, height: 24)))
        #expect(image.pixelSize == PixelSize(width: 24, height: 16))
    }

    @Test("Given a reduced-resolution copy, then thumbnails it covers are made from it, larger ones from the page")
    func reducedCopy() throws {
        func solid(_ c: UInt8, _ w: Int, _ h: Int) -> TIFFTestPage {
            TIFFTestPage(width: w, height: h, compression: COMPRESSION_LZW, samples: Array(repeating: c, count: w * h * 3))
        }
        var reduced = solid(100, 20, 10)
        reduced.subfileType = UInt32(FILETYPE_REDUCEDIMAGE)
        let data = try TIFFTestWriter.write([solid(255, 40, 20), reduced])
        #expect(try TIFFCoder().readMetadata(data).frameCount == 1)
        let small = try TIFFCoder().decode(data, options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 16, height: 16)))
        try #require(small.pixelSize == PixelSize(width: 16, height: 8) && small.frames.count == 1)
        #expect(small.pixels.pixel(x: 8, y: 4) == RGBA(r: 100, g: 100, b: 100))
        let larger = try TIFFCoder().decode(data, options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 30, height: 30)))
        try #require(larger.pixelSize == PixelSize(width: 30, height: 15))
        #expect(larger.pixels.pixel(x: 15, y: 7) == RGBA(r: 255, g: 255, b: 255))
        #expect(try TIFFCoder().decode(data, options: .default).pixels.pixel(x: 20, y: 10) == RGBA(r: 255, g: 255, b: 255))
    }

    @Test("Given the default coders manager, then TIFF is decoded and its metadata read")
    func registered() throws {
        let data = try TIFFTestWriter.write([Self.rgbPage(compression: COMPRESSION_LZW)])
        #expect(try CodersManager.shared.decode(data, options: .default).format == .tiff)
        #expect(try CodersManager.shared.readMetadata(data).frameCount == 1)
    }
}
