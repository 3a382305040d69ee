import CTIFF
import Foundation
import Testing
import WebImageCodecs
import WebImageCore
import WebImageTesting

/// 16-bit TIFF through the image model (SPEC H-1): pages libtiff wrote at 16 bits come back at
/// 16 bits, sample for sample, when asked; the default is still 8-bit.
@Suite("High bit depth: TIFF 16")
struct HighBitDepthTIFFTests {
    static let width = 20, height = 12

    /// `channels` 16-bit samples a pixel, values that use their low bytes.
    static func samples(channels: Int) -> [UInt16] {
        (0..<(width * height * channels)).map { i in UInt16(truncatingIfNeeded: i &* 2_654_435_761 >> 7) }
    }

    static func page(_ values: [UInt16], channels: Int, photometric: Int32, alpha: Int32? = nil, compression: Int32 = COMPRESSION_NONE, tile: Int? = nil) -> TIFFTestPage {
        let bytes = values.withUnsafeBytes { Array($0) }
        return TIFFTestPage(
            width: width, height: height, bitsPerSample: 16, samplesPerPixel: channels, photometric: photometric,
            compression: compression, extraSample: alpha, tileSize: tile, samples: bytes)
    }

    static var wideOptions: DecodeOptions {
        var options = DecodeOptions()
        options.preferredPixelFormat = .rgba16
        return options
    }

    @Test("Given a 16-bit RGB TIFF, when decoded with rgba16, then every sample is the file's", arguments: [
        (COMPRESSION_NONE, nil), (COMPRESSION_ADOBE_DEFLATE, nil), (COMPRESSION_LZW, 16),
    ] as [(Int32, Int?)])
    func rgb(compression: Int32, tile: Int?) throws {
        let values = Self.samples(channels: 3)
        let data = try TIFFTestWriter.write([Self.page(values, channels: 3, photometric: PHOTOMETRIC_RGB, compression: compression, tile: tile)])
        let image = try TIFFCoder().decode(data, options: Self.wideOptions)
        #expect(image.pixels.format == .rgba16)
        let decoded = image.pixels.withSamples16 { Array($0) }
        for i in 0..<(Self.width * Self.height) {
            #expect(Array(decoded[(i * 4)..<(i * 4 + 3)]) == Array(values[(i * 3)..<(i * 3 + 3)]))
            #expect(decoded[i * 4 + 3] == 65_535)
        }
        let eight = try TIFFCoder().decode(data, options: .default)
        #expect(eight.pixels.format == .rgba8)
        let p = eight.pixels.pixel(x: 3, y: 2)
        let i = (2 * Self.width + 3) * 3
        #expect(abs(Int(p.r) - Int(values[i]) / 257) <= 1)
    }

    @Test("Given a 16-bit RGBA TIFF with unassociated alpha, when decoded with rgba16, then colour and alpha are the file's")
    func rgbaUnassociated() throws {
        let values = Self.samples(channels: 4)
        let data = try TIFFTestWriter.write([Self.page(values, channels: 4, photometric: PHOTOMETRIC_RGB, alpha: EXTRASAMPLE_UNASSALPHA)])
        let image = try TIFFCoder().decode(data, options: Self.wideOptions)
        #expect(image.pixels.withSamples16 { Array($0) } == values)
        #expect(image.hasAlpha)
    }

    @Test("Given a 16-bit grey TIFF, when decoded with rgba16, then each grey sample fills R, G and B")
    func grey() throws {
        let values = Self.samples(channels: 1)
        let data = try TIFFTestWriter.write([Self.page(values, channels: 1, photometric: PHOTOMETRIC_MINISBLACK)])
        let image = try TIFFCoder().decode(data, options: Self.wideOptions)
        let decoded = image.pixels.withSamples16 { Array($0) }
        for (i, v) in values.enumerated() {
            #expect(decoded[i * 4] == v && decoded[i * 4 + 1] == v && decoded[i * 4 + 2] == v && decoded[i * 4 + 3] == 65_535)
        }
    }

    @Test("Given a 16-bit TIFF decoded at 16 bits, when resized and written as PNG and read back, then more than 8 bits are kept")
    func throughPNG() throws {
        let values = Self.samples(channels: 3)
        let data = try TIFFTestWriter.write([Self.page(values, channels: 3, photometric: PHOTOMETRIC_RGB)])
        let image = try TIFFCoder().decode(data, options: Self.wideOptions)
        let small = try #require(ResizeTransformer(size: PixelSize(width: 10, height: 6)).transform(image, key: "k"))
        let png = try PNGCoder().encode(small, format: .png, options: EncodeOptions())
        let back = try PNGCoder().decode(png, options: Self.wideOptions)
        #expect(back.pixels.withSamples16 { Array($0) } == small.pixels.withSamples16 { Array($0) })
        #expect(back.pixels.withSamples16 { $0.filter { $0 % 257 != 0 }.count } > 10 * 6 * 2)
    }

    @Test("Given a 16-bit TIFF over the budget at 8 bytes a pixel, when decoded with rgba16, then it is refused before decoding")
    func budget() throws {
        let data = try TIFFTestWriter.write([Self.page(Self.samples(channels: 3), channels: 3, photometric: PHOTOMETRIC_RGB)])
        var options = Self.wideOptions
        options.limits.maxDecodedBytes = Self.width * Self.height * 6
        #expect(throws: WebImageError.self) { try TIFFCoder().decode(data, options: options) }
        options.preferredPixelFormat = .rgba8
        #expect(try TIFFCoder().decode(data, options: options).pixels.format == .rgba8)
    }
}
