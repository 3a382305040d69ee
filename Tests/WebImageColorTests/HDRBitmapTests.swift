import Foundation
import Testing
import WebImageCodecs
import WebImageCore

@Suite("HDR bitmaps: RGBA16 PQ/HLG laid out for Core Graphics' BT.2100 colour spaces")
struct HDRBitmapTests {
    static func profile(_ primaries: UInt16, _ transfer: UInt16) -> ColorProfile {
        ColorProfile(kind: .cicp(CICP(colorPrimaries: primaries, transferCharacteristics: transfer, matrixCoefficients: 0, fullRange: true)))
    }

    /// A `width`×`height` RGBA16 buffer with `samples` repeated over it.
    static func buffer(width: Int, height: Int, _ samples: [UInt16]) -> PixelBuffer {
        PixelBuffer.make16(width: width, height: height) { out in
            for i in 0..<out.count { out[i] = samples[i % samples.count] }
        }
    }

    /// The 16-bit little-endian samples of `bytes`, read byte by byte.
    static func littleEndianSamples(_ bytes: [UInt8]) -> [UInt16] {
        stride(from: 0, to: bytes.count, by: 2).map { UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8 }
    }

    // The reference transfers (ITU-R BT.2100) and BT.709 → BT.2020 matrix (ITU-R BT.2087), in
    // double precision, written out here independently of the library's.
    static func pqToLinear(_ code: UInt16) -> Double {
        let m1 = 0.1593017578125, m2 = 78.84375, c1 = 0.8359375, c2 = 18.8515625, c3 = 18.6875
        let p = pow(Double(code) / 65_535, 1 / m2)
        return pow(max(p - c1, 0) / (c2 - c3 * p), 1 / m1)
    }

    static func linearToPQ(_ light: Double) -> Double {
        let m1 = 0.1593017578125, m2 = 78.84375, c1 = 0.8359375, c2 = 18.8515625, c3 = 18.6875
        let y = pow(min(max(light, 0), 1), m1)
        return pow((c1 + c2 * y) / (1 + c3 * y), m2) * 65_535
    }

    static let hlgA = 0.17883277
    static let hlgB = 1 - 4 * hlgA
    static let hlgC = 0.5 - hlgA * log(4 * hlgA)

    static func hlgToLinear(_ code: UInt16) -> Double {
        let e = Double(code) / 65_535
        return e <= 0.5 ? e * e / 3 : (exp((e - hlgC) / hlgA) + hlgB) / 12
    }

    static func linearToHLG(_ light: Double) -> Double {
        let e = min(max(light, 0), 1)
        return (e <= 1.0 / 12 ? (3 * e).squareRoot() : hlgA * log(12 * e - hlgB) + hlgC) * 65_535
    }

    static let bt709ToBT2020: [Double] = [
        0.627403895934699, 0.329283038377884, 0.043313065687417,
        0.069097289358232, 0.919540395075459, 0.011362315566309,
        0.016391438875150, 0.088013307877226, 0.895595253247624,
    ]

    /// Deterministic samples: greys, primaries and secondaries at several levels, and a
    /// pseudo-random spread (a fixed linear congruential sequence), each with alpha `alpha`.
    static func testPixels(alpha: UInt16) -> [UInt16] {
        var out: [UInt16] = []
        for level: UInt16 in [0, 1, 60, 700, 9_000, 24_000, 38_000, 48_000, 58_000, 65_535] {
            out += [level, level, level, alpha]
            out += [level, 0, 0, alpha, 0, level, 0, alpha, 0, 0, level, alpha]
            out += [level, level, 0, alpha, 0, level, level, alpha, level, 0, level, alpha]
        }
        var state: UInt32 = 12_345
        for _ in 0..<2_000 {
            for _ in 0..<3 {
                state = state &* 1_103_515_245 &+ 12_345
                out.append(UInt16(truncatingIfNeeded: state >> 8))
            }
            out.append(alpha)
        }
        return out
    }

    @Test("BT.2020 and Display P3 PQ/HLG keep their samples, little endian, in the matching space",
          arguments: [
              (UInt16(9), UInt16(16), HDRBitmap.ColorSpace.itur2100PQ),
              (9, 18, .itur2100HLG),
              (2, 16, .itur2100PQ),
              (2, 18, .itur2100HLG),
              (12, 16, .displayP3PQ),
              (12, 18, .displayP3HLG),
          ])
    func keepsSamples(primaries: UInt16, transfer: UInt16, expected: HDRBitmap.ColorSpace) throws {
        let samples: [UInt16] = [0x1234, 0xABCD, 0x00FF, 0x8001, 0xFF00, 0x0001, 0xFFFF, 0xFFFF]
        let pixels = Self.buffer(width: 5, height: 3, samples)
        let bitmap = try #require(HDRBitmap(pixels: pixels, colorProfile: Self.profile(primaries, transfer)))
        #expect(bitmap.colorSpace == expected)
        #expect(!bitmap.primariesConverted)
        #expect(bitmap.width == 5 && bitmap.height == 3 && bitmap.bytesPerRow == 40)
        #expect(HDRBitmap.bitsPerComponent == 16 && HDRBitmap.bitsPerPixel == 64)
        #expect(!bitmap.isOpaque)
        #expect(bitmap.bytes.count == 5 * 3 * 8)
        #expect(Array(bitmap.bytes.prefix(4)) == [0x34, 0x12, 0xCD, 0xAB])
        #expect(Self.littleEndianSamples(bitmap.bytes) == pixels.withSamples16 { Array($0) })
    }

    @Test("Opaque pixels are reported opaque")
    func opaque() throws {
        let pixels = Self.buffer(width: 4, height: 4, [100, 200, 300, 65_535])
        let bitmap = try #require(HDRBitmap(pixels: pixels, colorProfile: Self.profile(9, 16)))
        #expect(bitmap.isOpaque)
    }

    @Test("No HDR bitmap for 8-bit pixels, SDR descriptions, ICC profiles or unknown primaries")
    func noBitmap() {
        let rgba16 = Self.buffer(width: 2, height: 2, [1_000, 2_000, 3_000, 65_535])
        let rgba8 = PixelBuffer(width: 2, height: 2, bytes: [UInt8](repeating: 128, count: 16))
        #expect(HDRBitmap(pixels: rgba8, colorProfile: Self.profile(9, 16)) == nil)
        #expect(HDRBitmap(pixels: rgba16, colorProfile: nil) == nil)
        #expect(HDRBitmap(pixels: rgba16, colorProfile: ColorProfile(kind: .sRGB)) == nil)
        #expect(HDRBitmap(pixels: rgba16, colorProfile: Self.profile(1, 13)) == nil)
        #expect(HDRBitmap(pixels: rgba16, colorProfile: Self.profile(9, 1)) == nil)
        #expect(HDRBitmap(pixels: rgba16, colorProfile: Self.profile(22, 16)) == nil)
        #expect(HDRBitmap(pixels: rgba16, colorProfile: ColorProfile(kind: .icc(Data(repeating: 0, count: 200)))) == nil)
    }

    /// Converts BT.709 `transfer` samples through the reference and compares with the bitmap's.
    func checkConversion(transfer: UInt16, toLinear: (UInt16) -> Double, toCode: (Double) -> Double) throws {
        let samples = Self.testPixels(alpha: 40_000)
        let pixels = Self.buffer(width: samples.count / 4, height: 1, samples)
        let bitmap = try #require(HDRBitmap(pixels: pixels, colorProfile: Self.profile(1, transfer)))
        #expect(bitmap.colorSpace == (transfer == 16 ? .itur2100PQ : .itur2100HLG))
        #expect(bitmap.primariesConverted)
        #expect(!bitmap.isOpaque)
        let out = Self.littleEndianSamples(bitmap.bytes)
        #expect(out.count == samples.count)
        let m = Self.bt709ToBT2020
        var worst = 0.0
        for p in stride(from: 0, to: samples.count, by: 4) {
            let rgb = (0..<3).map { toLinear(samples[p + $0]) }
            for c in 0..<3 {
                let expected = toCode(m[3 * c] * rgb[0] + m[3 * c + 1] * rgb[1] + m[3 * c + 2] * rgb[2])
                worst = max(worst, abs(Double(out[p + c]) - expected))
            }
            #expect(out[p + 3] == 40_000)
            if samples[p] == samples[p + 1], samples[p] == samples[p + 2] {
                // Greys stay grey at the same level (the matrix keeps white).
                #expect(abs(Int(out[p]) - Int(samples[p])) <= 2 && out[p] == out[p + 1] && out[p] == out[p + 2])
            }
        }
        #expect(worst <= 1.0, "largest difference from the reference: \(worst) codes of 65535")
    }

    @Test("BT.709 PQ (what `.high` gives for a gain-map image) is converted to BT.2020 PQ")
    func bt709PQ() throws {
        try checkConversion(transfer: 16, toLinear: Self.pqToLinear, toCode: Self.linearToPQ)
    }

    @Test("BT.709 HLG is converted to BT.2020 HLG in scene light")
    func bt709HLG() throws {
        try checkConversion(transfer: 18, toLinear: Self.hlgToLinear, toCode: Self.linearToHLG)
    }

    @Test("DCI-P3 PQ (DCI white) is converted to BT.2020 PQ, its white adapted to D65: greys stay grey")
    func dciP3() throws {
        let samples: [UInt16] = [0, 0, 0, 65_535, 20_000, 20_000, 20_000, 65_535, 38_000, 38_000, 38_000, 65_535, 52_000, 52_000, 52_000, 65_535]
        let pixels = Self.buffer(width: 4, height: 1, samples)
        let bitmap = try #require(HDRBitmap(pixels: pixels, colorProfile: Self.profile(11, 16)))
        #expect(bitmap.colorSpace == .itur2100PQ)
        #expect(bitmap.primariesConverted)
        let out = Self.littleEndianSamples(bitmap.bytes)
        for p in stride(from: 0, to: samples.count, by: 4) {
            #expect(abs(Int(out[p]) - Int(out[p + 1])) <= 1 && abs(Int(out[p + 2]) - Int(out[p + 1])) <= 1)
            #expect(abs(Int(out[p + 1]) - Int(samples[p + 1])) <= 2)
        }
    }

    @Test("A gain-map JPEG decoded with `.high` gives a BT.2020 PQ bitmap whose highlights stay above SDR white")
    func gainMapHighRendition() throws {
        // A 64×48 BT.709 PQ picture: a grey ramp up to reference white (203 cd/m², PQ 0.58) on
        // the left, a highlight at 4× reference white on the right; written as a gain-map JPEG.
        let width = 64, height = 48
        let white = Self.linearToPQ(203.0 / 10_000), highlight = Self.linearToPQ(4 * 203.0 / 10_000)
        let pixels = PixelBuffer.make16(width: width, height: height) { out in
            for y in 0..<height {
                for x in 0..<width {
                    let code = x < 32 ? UInt16((white * Double(x) / 31).rounded()) : UInt16(highlight.rounded())
                    let i = (y * width + x) * 4
                    (out[i], out[i + 1], out[i + 2], out[i + 3]) = (code, code, code, 65_535)
                }
            }
        }
        let source = Image(frames: [ImageFrame(pixels: pixels)], hasAlpha: false, colorProfile: Self.profile(1, 16), gainMap: nil)
        let jpeg = try CodersManager.shared.encode(source, format: .jpeg, options: EncodeOptions(quality: 0.95))
        var options = DecodeOptions()
        options.dynamicRange = .high
        let decoded = try CodersManager.shared.decode(jpeg, options: options)
        #expect(decoded.pixels.format == .rgba16)
        let bitmap = try #require(HDRBitmap(pixels: decoded.pixels, colorProfile: decoded.colorProfile))
        #expect(bitmap.colorSpace == .itur2100PQ)
        #expect(bitmap.primariesConverted)
        #expect(bitmap.isOpaque)
        let out = Self.littleEndianSamples(bitmap.bytes)
        let inHighlight = (24 * width + 48) * 4, inRamp = (24 * width + 16) * 4
        // The highlight keeps its light (within 2 % of 4× reference white) and stays far above
        // SDR white; the grey ramp stays below it.
        let highlightLight = Self.pqToLinear(out[inHighlight + 1]) * 10_000 / 203
        #expect(abs(highlightLight - 4) < 0.08, "highlight at \(highlightLight)× reference white")
        #expect(Double(out[inRamp + 1]) < white)
    }
}
