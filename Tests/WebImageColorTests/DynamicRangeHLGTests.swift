import Foundation
import Testing
import WebImageCodecs
import WebImageCore
import WebImageTesting

/// `.high` on HLG sources and 12-bit AVIF (SPEC H-1, H-5): the signal, its CICP and its depth
/// are kept through decode and encode.
@Suite("Dynamic range: HLG and 12-bit kept")
struct DynamicRangeHLGTests {
    static let width = 16, height = 8
    static let hlg = CICP(colorPrimaries: 9, transferCharacteristics: 18, matrixCoefficients: 0, fullRange: true)

    @Test("Given a 16-bit HLG PNG (cICP 9/18), when decoded with .high, then the stored samples with CICP 9/18; PNG output is 16-bit cICP 9/18 and AVIF output 10-bit 9/18; .standard tone-maps to 8-bit")
    func hlgPNGKept() throws {
        let samples = (0..<(Self.width * Self.height)).flatMap { i -> [UInt16] in
            let v = UInt16(i * 65_535 / (Self.width * Self.height - 1)) | 1
            return [v, v &- 300, v / 2 | 1]
        }
        let png = WidePNGWriter.png(width: Self.width, height: Self.height, channels: 3, samples: samples, chunks: [WidePNGWriter.cicp(primaries: 9, transfer: 18)])
        let high = try PNGCoder().decode(png, options: DynamicRangeTests.highOptions())
        #expect(high.pixels.format == .rgba16)
        #expect(high.colorProfile?.kind == .cicp(Self.hlg))
        let decoded = high.pixels.withSamples16 { Array($0) }
        for i in 0..<(Self.width * Self.height) {
            #expect(Array(decoded[(i * 4)..<(i * 4 + 3)]) == Array(samples[(i * 3)..<(i * 3 + 3)]))
        }

        let pngOut = try PNGCoder().encode(high, format: .png, options: .default)
        #expect(pngOut[24] == 16, "IHDR bit depth")
        let back = try PNGCoder().decode(pngOut, options: DynamicRangeTests.highOptions())
        #expect(back.colorProfile?.kind == .cicp(Self.hlg))
        #expect(back.pixels.withSamples16 { Array($0) } == decoded)

        let avif = try AVIFCoder().encode(high, format: .avif, options: EncodeOptions(quality: 1))
        let stored = try HighBitDepthAVIFTests.stored(avif)
        #expect(stored.depth == 10 && stored.primaries == 9 && stored.transfer == 18)

        let standard = try PNGCoder().decode(png, options: .default)
        #expect(standard.pixels.format == .rgba8 && standard.colorProfile == nil)
    }

    @Test("Given a lossless 12-bit HLG AVIF, when decoded with .high and written as AVIF at 12 bits, then the file is 12-bit with CICP 9/18 and every 12-bit code comes back (at 10 bits they do not)")
    func twelveBitAVIFKept() throws {
        let codes = (0..<(Self.width * Self.height)).flatMap { i -> [UInt16] in
            let v = UInt16(i * 4_095 / (Self.width * Self.height - 1))
            return [v, 4_095 - v, (v * 7) % 4_096]
        }
        let file = try AVIFTestWriter.avif10(width: Self.width, height: Self.height, samples: codes, primaries: 9, transfer: 18, depth: 12)
        #expect(try HighBitDepthAVIFTests.stored(file).depth == 12)
        let high = try AVIFCoder().decode(file, options: DynamicRangeTests.highOptions())
        #expect(high.pixels.format == .rgba16)
        #expect(high.colorProfile?.kind == .cicp(Self.hlg))

        var options = EncodeOptions(quality: 1, lossless: true)
        options.highBitDepth = 12
        let written = try AVIFCoder().encode(high, format: .avif, options: options)
        let stored = try HighBitDepthAVIFTests.stored(written)
        #expect(stored.depth == 12 && stored.primaries == 9 && stored.transfer == 18)
        // Back at 16 bits (lossless, identity matrix): every sample is the source's 12-bit code widened.
        let back = try AVIFCoder().decode(written, options: DynamicRangeTests.highOptions()).pixels.withSamples16 { Array($0) }
        var worst = 0
        for i in 0..<(Self.width * Self.height) {
            for c in 0..<3 {
                worst = max(worst, abs(Int(back[i * 4 + c]) - Int(PixelFormat.widen(codes[i * 3 + c], bits: 12))))
            }
        }
        #expect(worst <= 1, "off by \(worst) in 16-bit units (one 12-bit step is 16)")
        // At the default 10 bits the same picture loses its low 2 bits (a 10-bit step is 64).
        let ten = try AVIFCoder().encode(high, format: .avif, options: EncodeOptions(quality: 1))
        #expect(try HighBitDepthAVIFTests.stored(ten).depth == 10)
        let tenBack = try AVIFCoder().decode(ten, options: DynamicRangeTests.highOptions()).pixels.withSamples16 { Array($0) }
        var tenWorst = 0
        for i in 0..<(Self.width * Self.height) {
            for c in 0..<3 {
                tenWorst = max(tenWorst, abs(Int(tenBack[i * 4 + c]) - Int(PixelFormat.widen(codes[i * 3 + c], bits: 12))))
            }
        }
        #expect(tenWorst >= 32, "10 bits kept only \(tenWorst) off: the 12-bit check would not tell")
    }
}
