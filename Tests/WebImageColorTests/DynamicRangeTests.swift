import Foundation
import Testing
import WebImageCodecs
import WebImageCore
import WebImageTesting

/// `DecodeOptions.dynamicRange` (SPEC H-5): `.high` keeps a PQ or HLG source's signal at 16 bits
/// with its CICP, `.standard` (the default) tone-maps it to 8-bit SDR.
@Suite("Dynamic range: HDR kept on request")
struct DynamicRangeTests {
    static let width = 16, height = 8

    /// A PQ grey ramp over 0…0.75 of the signal (up to about 1,000 cd/m²), in 16-bit codes that
    /// are not 8-bit values widened.
    static let samples: [UInt16] = (0..<(width * height)).flatMap { i -> [UInt16] in
        let v = UInt16(i * 49_151 / (width * height - 1)) | 1
        return [v, v, v]
    }

    static var pqPNG: Data {
        WidePNGWriter.png(width: width, height: height, channels: 3, samples: samples, chunks: [WidePNGWriter.cicp(primaries: 9, transfer: 16)])
    }

    static func highOptions() -> DecodeOptions {
        var options = DecodeOptions()
        options.dynamicRange = .high
        return options
    }

    @Test("Given default decode options, then the dynamic range is standard and decoders give RGBA8; .high asks for RGBA16 whatever the preferred format")
    func defaults() {
        var options = DecodeOptions()
        #expect(options.dynamicRange == .standard)
        #expect(options.decodedPixelFormat == .rgba8)
        options.preferredPixelFormat = .rgba16
        #expect(options.decodedPixelFormat == .rgba16)
        options.preferredPixelFormat = .rgba8
        options.dynamicRange = .high
        #expect(options.decodedPixelFormat == .rgba16)
    }

    @Test("Given a 16-bit PQ PNG, when decoded with .high, then the pixels are the stored 16-bit PQ codes with CICP 9/16 attached; .standard tone-maps to untagged 8-bit")
    func pngKeepsPQ() throws {
        let high = try PNGCoder().decode(Self.pqPNG, options: Self.highOptions())
        #expect(high.pixels.format == .rgba16)
        #expect(high.colorProfile?.kind == .cicp(CICP(colorPrimaries: 9, transferCharacteristics: 16, matrixCoefficients: 0, fullRange: true)))
        let stored = high.pixels.withSamples16 { Array($0) }
        for i in 0..<(Self.width * Self.height) {
            #expect(stored[i * 4] == Self.samples[i * 3], "pixel \(i)")
        }
        let standard = try PNGCoder().decode(Self.pqPNG, options: .default)
        #expect(standard.pixels.format == .rgba8)
        #expect(standard.colorProfile == nil)
    }

    @Test("Given a 16-bit PQ PNG decoded with .high, when resized and written as PNG, then the file is 16-bit with cICP 9/16 and more than 8 bits survive")
    func pngRoundTrip() throws {
        let high = try PNGCoder().decode(Self.pqPNG, options: Self.highOptions())
        let resized = try #require(ResizeTransformer(size: PixelSize(width: 8, height: 4)).transform(high, key: "k"))
        let written = try PNGCoder().encode(resized, format: .png, options: .default)
        #expect(written[24] == 16, "IHDR bit depth")
        let back = try PNGCoder().decode(written, options: Self.highOptions())
        #expect(back.colorProfile?.kind == .cicp(CICP(colorPrimaries: 9, transferCharacteristics: 16, matrixCoefficients: 0, fullRange: true)))
        let beyond = back.pixels.withSamples16 { $0.enumerated().filter { $0.offset % 4 != 3 && $0.element % 257 != 0 }.count }
        #expect(beyond > 8 * 4)
    }

    @Test("Given a 10-bit PQ AVIF, when decoded with .high, then it is RGBA16 with CICP 9/16 and AVIF output is 10-bit 9/16 again")
    func avifKeepsPQ() throws {
        let codes = (0..<(Self.width * Self.height)).flatMap { i -> [UInt16] in
            let v = UInt16(i * 767 / (Self.width * Self.height - 1))
            return [v, v, v]
        }
        let file = try AVIFTestWriter.avif10(width: Self.width, height: Self.height, samples: codes, primaries: 9, transfer: 16)
        let high = try AVIFCoder().decode(file, options: Self.highOptions())
        #expect(high.pixels.format == .rgba16)
        guard case .cicp(let cicp)? = high.colorProfile?.kind else {
            Issue.record("no CICP: \(String(describing: high.colorProfile))")
            return
        }
        #expect(cicp.colorPrimaries == 9 && cicp.transferCharacteristics == 16)
        let written = try AVIFCoder().encode(high, format: .avif, options: EncodeOptions(quality: 1))
        let stored = try HighBitDepthAVIFTests.stored(written)
        #expect(stored.depth == 10 && stored.primaries == 9 && stored.transfer == 16)
        let standard = try AVIFCoder().decode(file, options: .default)
        #expect(standard.pixels.format == .rgba8 && standard.colorProfile == nil)
    }

    @Test("Given an 8-bit PNG, when decoded with .high, then it is RGBA8 as with .standard")
    func eightBitUnchanged() throws {
        let png = try PNGCoder().encode(Image(pixels: PixelBuffer(width: 2, height: 2, bytes: [UInt8](repeating: 90, count: 16))), format: .png, options: .default)
        let image = try PNGCoder().decode(png, options: Self.highOptions())
        #expect(image.pixels.format == .rgba8)
        #expect(image.pixels.bytes == [UInt8](repeating: 90, count: 16))
    }

    @Test("Given a 16-bit PQ PNG decoded with .high, when written as lossless JPEG XL, then the file is 16-bit PQ (BT.2100 primaries) and gives back the same samples")
    func jxlKeepsPQ() throws {
        let high = try PNGCoder().decode(Self.pqPNG, options: Self.highOptions())
        let written = try JXLCoder().encode(high, format: .jxl, options: EncodeOptions(quality: 1))
        #expect(try JXLCoder().readMetadata(written).bitDepth == 16)
        let back = try JXLCoder().decode(written, options: Self.highOptions())
        #expect(back.pixels.format == .rgba16)
        guard case .cicp(let cicp)? = back.colorProfile?.kind else {
            Issue.record("no CICP: \(String(describing: back.colorProfile))")
            return
        }
        #expect(cicp.colorPrimaries == 9 && cicp.transferCharacteristics == 16)
        let original = high.pixels.withSamples16 { Array($0) }
        let decoded = back.pixels.withSamples16 { Array($0) }
        let worst = zip(original, decoded).map { abs(Int($0) - Int($1)) }.max() ?? .max
        #expect(worst <= 1, "off by \(worst)")
        // 8-bit JPEG XL output of the same picture is tone-mapped SDR without a description.
        let sdr = try JXLCoder().encode(try PNGCoder().decode(Self.pqPNG, options: .default), format: .jxl, options: EncodeOptions(quality: 1))
        #expect(try JXLCoder().readMetadata(sdr).bitDepth == 8)
    }
}
