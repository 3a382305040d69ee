import Foundation
import Testing
import WebImageCodecs
import WebImageCore
import WebImageTesting

/// 16-bit PNG through the image model (SPEC H-1): decoded at 16 bits when asked, resized in 16
/// bits, written back at 16 bits; the default stays 8-bit.
@Suite("High bit depth: PNG 16")
struct HighBitDepthPNGTests {
    static let width = 48, height = 32

    /// Smooth RGBA ramps whose values are not multiples of 257 (so their low bytes carry
    /// information an 8-bit image cannot hold).
    static let samples: [UInt16] = {
        var values: [UInt16] = []
        for y in 0..<height {
            for x in 0..<width {
                let r: Int = x * 1_303 + y * 17 + 5
                let g: Int = y * 2_011 + x * 13 + 3
                let b: Int = 40_000 + x * 311 - y * 97
                values += [UInt16(r), UInt16(g), UInt16(b), 65_535]
            }
        }
        return values
    }()

    static var wideOptions: DecodeOptions {
        var options = DecodeOptions()
        options.preferredPixelFormat = .rgba16
        return options
    }

    static func file() -> Data {
        WidePNGWriter.png(width: width, height: height, channels: 4, samples: samples)
    }

    /// The IHDR bit depth of a PNG file.
    static func bitDepth(_ png: Data) -> UInt8 { png[png.startIndex + 24] }

    /// How many samples of a 16-bit buffer differ from the nearest 8-bit value widened back.
    static func samplesBeyond8Bits(_ pixels: PixelBuffer) -> Int {
        pixels.withSamples16 { s in s.filter { $0 % 257 != 0 }.count }
    }

    @Test("Given a 16-bit PNG, when decoded with rgba16, then every sample is the file's exactly")
    func decodesExactly() throws {
        let image = try PNGCoder().decode(Self.file(), options: Self.wideOptions)
        #expect(image.pixelFormat == .rgba16)
        #expect(image.pixels.format == .rgba16)
        #expect(image.pixels.byteCount == Self.width * Self.height * 8)
        #expect(image.pixels.withSamples16 { Array($0) } == Self.samples)
        #expect(image.cost == Self.width * Self.height * 8)
    }

    @Test("Given a 16-bit PNG, when decoded by default, then it is RGBA8, each value the nearest 8-bit one")
    func defaultStaysEightBit() throws {
        let image = try PNGCoder().decode(Self.file(), options: .default)
        #expect(image.pixels.format == .rgba8)
        let p = image.pixels.pixel(x: 7, y: 5)
        let i = (5 * Self.width + 7) * 4
        #expect(p.r == PixelFormat.narrow(Self.samples[i]) || Int(p.r) == Int(Self.samples[i] >> 8))
        #expect(p.a == 255)
    }

    @Test("Given a 16-bit PNG, when resized and encoded as PNG, then the file is 16-bit and keeps more than 8 bits")
    func resizeRoundTrip() throws {
        let image = try PNGCoder().decode(Self.file(), options: Self.wideOptions)
        let resized = try #require(ResizeTransformer(size: PixelSize(width: 24, height: 16)).transform(image, key: "k"))
        #expect(resized.pixels.format == .rgba16)
        #expect(resized.pixelSize == PixelSize(width: 24, height: 16))
        let png = try PNGCoder().encode(resized, format: .png, options: EncodeOptions())
        #expect(Self.bitDepth(png) == 16)
        let back = try PNGCoder().decode(png, options: Self.wideOptions)
        #expect(back.pixels.withSamples16 { Array($0) } == resized.pixels.withSamples16 { Array($0) })
        // Far more than a handful of samples use the low byte: the depth survived.
        let beyond = Self.samplesBeyond8Bits(back.pixels)
        #expect(beyond > 24 * 16 * 3 / 2, "only \(beyond) samples beyond 8 bits")
        let lowBytes = Set(back.pixels.withSamples16 { $0.map { UInt8($0 & 0xFF) } })
        #expect(lowBytes.count > 64)
        // The resize is a smooth ramp's: each value near the source's at the same place.
        let sourceValue = Double(Self.samples[(10 * Self.width + 20) * 4])
        let resizedValue = Double(back.pixels.sample16(x: 10, y: 5)[0])
        #expect(abs(sourceValue - resizedValue) < 1_400)
    }

    @Test("Given an opaque 16-bit image, when encoded as PNG, then it is RGB16 and decodes to the same samples")
    func opaqueIsRGB16() throws {
        let image = try PNGCoder().decode(Self.file(), options: Self.wideOptions)
        let png = try PNGCoder().encode(image, format: .png, options: EncodeOptions())
        #expect(Self.bitDepth(png) == 16)
        #expect(png[png.startIndex + 25] == 2)  // colour type: RGB
        let back = try PNGCoder().decode(png, options: Self.wideOptions)
        #expect(back.pixels.withSamples16 { Array($0) } == Self.samples)
    }

    @Test("Given a 16-bit PQ PNG decoded at 16 bits, when written as PNG, then its cICP 9/16 is kept")
    func keepsCICP() throws {
        let png = WidePNGWriter.png(
            width: Self.width, height: Self.height, channels: 4, samples: Self.samples,
            chunks: [WidePNGWriter.cicp(primaries: 9, transfer: 16)])
        let image = try PNGCoder().decode(png, options: Self.wideOptions)
        let pq = CICP(colorPrimaries: 9, transferCharacteristics: 16, matrixCoefficients: 0, fullRange: true)
        #expect(image.colorProfile?.kind == .cicp(pq))
        #expect(image.pixels.withSamples16 { Array($0) } == Self.samples)
        let written = try PNGCoder().encode(image, format: .png, options: EncodeOptions())
        #expect(try PNGCoder().readMetadata(written).colorProfile?.kind == .cicp(pq))
        #expect(Self.bitDepth(written) == 16)
    }

    @Test("Given a 16-bit PQ image, when written as JPEG, then it is tone-mapped to SDR from its 16-bit samples")
    func eightBitEncoderToneMaps() throws {
        let grey = UInt16(0.58 * 65_535)  // about PQ 203 cd/m², BT.2408 reference white
        let png = WidePNGWriter.png(
            width: 8, height: 8, channels: 3, samples: Array(repeating: grey, count: 8 * 8 * 3),
            chunks: [WidePNGWriter.cicp(primaries: 9, transfer: 16)])
        let image = try PNGCoder().decode(png, options: Self.wideOptions)
        let jpeg = try JPEGCoder().encode(image, format: .jpeg, options: EncodeOptions())
        let back = try JPEGCoder().decode(jpeg, options: .default)
        #expect(back.pixels.pixel(x: 4, y: 4).g >= 235)
    }

    @Test("Given a 16-bit PNG over the decoded-bytes budget at 8 bytes a pixel, when decoded with rgba16, then it is refused from the header")
    func budgetCountsEightBytes() throws {
        // 8000×8000 is exactly the default budget at 4 bytes a pixel and twice it at 8; the
        // file has no image data to speak of, so only the header can refuse it in time.
        var file = [UInt8](WidePNGWriter.png(width: 1, height: 1, channels: 4, samples: [1, 2, 3, 4]))
        let side: [UInt8] = [0, 0, 0x1F, 0x40]
        file.replaceSubrange(16..<24, with: side + side)
        let crc = CRC32.checksum(file[12..<29])
        file.replaceSubrange(29..<33, with: [UInt8(crc >> 24), UInt8((crc >> 16) & 0xFF), UInt8((crc >> 8) & 0xFF), UInt8(crc & 0xFF)])
        #expect(throws: WebImageError.self) { try PNGCoder().decode(Data(file), options: Self.wideOptions) }
        do {
            _ = try PNGCoder().decode(Data(file), options: Self.wideOptions)
        } catch let WebImageError.imageTooLarge(reason) {
            #expect(reason.contains("budget"))
        }
        // A smaller budget shows the factor two: 400×400 fits at 4 bytes and not at 8.
        var options = Self.wideOptions
        options.limits.maxDecodedBytes = 400 * 400 * 6
        let small = WidePNGWriter.png(width: 400, height: 400, channels: 3, samples: Array(repeating: 300, count: 400 * 400 * 3))
        #expect(throws: WebImageError.self) { try PNGCoder().decode(small, options: options) }
        options.preferredPixelFormat = .rgba8
        #expect(try PNGCoder().decode(small, options: options).pixels.format == .rgba8)
    }
}
