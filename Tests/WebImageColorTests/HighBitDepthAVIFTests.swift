import CAVIF
import Foundation
import Testing
import WebImageCodecs
import WebImageCore

/// 10-bit AVIF through the image model (SPEC H-1): decoded to RGBA16 when asked, written back at
/// 10 (or 12) bits with its CICP code points.
@Suite("High bit depth: AVIF 10/12")
struct HighBitDepthAVIFTests {
    static let width = 24, height = 16

    /// 10-bit codes (3 a pixel) that an 8-bit image cannot hold: a ramp over all of 0…1023.
    static let codes: [UInt16] = (0..<(width * height)).flatMap { i -> [UInt16] in
        let v = UInt16(i * 1023 / (width * height - 1))
        return [v, 1023 - v, UInt16((i * 7) % 1024)]
    }

    static var wideOptions: DecodeOptions {
        var options = DecodeOptions()
        options.preferredPixelFormat = .rgba16
        return options
    }

    static let pq = CICP(colorPrimaries: 9, transferCharacteristics: 16, matrixCoefficients: 0, fullRange: true)

    /// The stored depth and code points of an AVIF file, read by libavif itself.
    static func stored(_ data: Data) throws -> (depth: UInt32, primaries: UInt16, transfer: UInt16) {
        let decoder = try #require(avifDecoderCreate())
        defer { avifDecoderDestroy(decoder) }
        let result = data.withUnsafeBytes { bytes -> avifResult in
            _ = avifDecoderSetIOMemory(decoder, bytes.bindMemory(to: UInt8.self).baseAddress, bytes.count)
            return avifDecoderParse(decoder)
        }
        try #require(result == AVIF_RESULT_OK)
        let image = try #require(decoder.pointee.image)
        return (image.pointee.depth, image.pointee.colorPrimaries, image.pointee.transferCharacteristics)
    }

    @Test("Given a 10-bit PQ AVIF, when decoded with rgba16, then its samples are the 10-bit codes widened and CICP 9/16 is kept")
    func decodes() throws {
        let file = try AVIFTestWriter.avif10(width: Self.width, height: Self.height, samples: Self.codes, primaries: 9, transfer: 16)
        let image = try AVIFCoder().decode(file, options: Self.wideOptions)
        #expect(image.pixels.format == .rgba16)
        #expect(image.colorProfile?.kind == .cicp(Self.pq))
        let samples = image.pixels.withSamples16 { Array($0) }
        var worst = 0
        for i in 0..<(Self.width * Self.height) {
            for c in 0..<3 {
                let expected = Int(PixelFormat.widen(Self.codes[i * 3 + c], bits: 10))
                worst = max(worst, abs(Int(samples[i * 4 + c]) - expected))
            }
            #expect(samples[i * 4 + 3] == 65_535)
        }
        // Lossless 4:4:4 identity: the codes come back, up to the scaling's rounding.
        #expect(worst <= 64, "off by \(worst)")
        // The default decode is still 8-bit SDR.
        let sdr = try AVIFCoder().decode(file, options: .default)
        #expect(sdr.pixels.format == .rgba8 && sdr.colorProfile == nil)
    }

    @Test("Given a 10-bit PQ AVIF decoded at 16 bits, when resized and written as AVIF, then the file is 10-bit with CICP 9/16", arguments: [10, 12])
    func roundTrip(depth: Int) throws {
        let file = try AVIFTestWriter.avif10(width: Self.width, height: Self.height, samples: Self.codes, primaries: 9, transfer: 16)
        let image = try AVIFCoder().decode(file, options: Self.wideOptions)
        let resized = try #require(ResizeTransformer(size: PixelSize(width: 12, height: 8)).transform(image, key: "k"))
        var options = EncodeOptions(quality: 1)
        options.highBitDepth = depth
        let written = try AVIFCoder().encode(resized, format: .avif, options: options)
        let stored = try Self.stored(written)
        #expect(stored.depth == UInt32(depth))
        #expect(stored.primaries == 9 && stored.transfer == 16)
        let back = try AVIFCoder().decode(written, options: Self.wideOptions)
        #expect(back.pixels.format == .rgba16)
        #expect(back.colorProfile?.kind == .cicp(CICP(colorPrimaries: 9, transferCharacteristics: 16, matrixCoefficients: back.cicpMatrix, fullRange: true)))
        // More than 8 bits survived: many samples are not 8-bit values widened.
        let beyond = back.pixels.withSamples16 { $0.filter { $0 % 257 != 0 }.count }
        #expect(beyond > 12 * 8)
    }

    @Test("Given an 8-bit image, when written as AVIF, then it is still 8-bit")
    func eightBitUnchanged() throws {
        let pixels = PixelBuffer.make(width: 8, height: 8) { $0.update(repeating: 200) }
        let written = try AVIFCoder().encode(Image(pixels: pixels, hasAlpha: false), format: .avif, options: EncodeOptions())
        #expect(try Self.stored(written).depth == 8)
    }
}

extension Image {
    /// The matrix code point of a CICP description (0 when there is none).
    fileprivate var cicpMatrix: UInt16 {
        if case .cicp(let cicp)? = colorProfile?.kind { return cicp.matrixCoefficients }
        return 0
    }
}
