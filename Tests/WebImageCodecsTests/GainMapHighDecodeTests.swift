import Foundation
import Testing
import WebImageCodecs
import WebImageCore
import WebImageTesting

@Suite("Gain maps: `.high` decodes the HDR rendition into RGBA16 PQ", .serialized)
struct GainMapHighDecodeTests {
    static let pqCICP = CICP(colorPrimaries: 1, transferCharacteristics: 16, matrixCoefficients: 0, fullRange: true)

    static var high: DecodeOptions {
        var options = DecodeOptions()
        options.dynamicRange = .high
        return options
    }

    /// The R, G, B samples of an RGBA16 buffer as PQ signal values (0…1).
    static func pqSignal(_ pixels: PixelBuffer) -> [Double] {
        pixels.withSamples16 { s in
            var out: [Double] = []
            out.reserveCapacity(s.count / 4 * 3)
            for i in stride(from: 0, to: s.count, by: 4) {
                for c in 0..<3 { out.append(Double(s[i + c]) / 65535) }
            }
            return out
        }
    }

    /// PSNR between two PQ signals (peak 1), and the largest difference.
    static func psnr(_ a: [Double], _ b: [Double]) -> (psnr: Double, worst: Double) {
        var sum = 0.0, worst = 0.0
        for (x, y) in zip(a, b) {
            sum += (x - y) * (x - y)
            worst = max(worst, abs(x - y))
        }
        return (10 * log10(1 / max(sum / Double(max(a.count, 1)), 1e-14)), worst)
    }

    // libultrahdr's decode is linear half float at its full display boost; ours is the same
    // rendition (GainMapRenditionTests: about 60 dB in PQ) coded as 16-bit PQ, whose own
    // rounding is below 1/131,070 (about 100 dB). 50 dB allows the half-float rounding and the
    // map's bilinear sampling; the SDR base alone scores about 30 dB against the reference, so a
    // missing or mis-weighted gain fails.
    @Test(
        "Given libultrahdr's files (map at 1 and 1/4, three-channel ISO metadata), when decoded with .high, then RGBA16 PQ (CICP 1/16) without the map, within 50 dB in PQ of libultrahdr's HDR decode",
        .enabled(if: UltraHDRReference.isAvailable),
        arguments: ["uhdr-scale1.jpg", "uhdr-scale4.jpg", "multi-iso-only.jpg"])
    func matchesLibultrahdr(name: String) throws {
        let data = try #require(UltraHDRReference.fixtures[name])
        let image = try JPEGCoder().decode(data, options: Self.high)
        #expect(image.pixelFormat == .rgba16)
        #expect(image.colorProfile?.kind == .cicp(Self.pqCICP))
        #expect(image.gainMap == nil)
        let reference = try UltraHDRReference.rendition(data)
        #expect(reference.width == image.width && reference.height == image.height)
        let referencePQ = reference.values.map { GainMapRenditionTests.pq($0) }
        let (psnr, worst) = Self.psnr(Self.pqSignal(image.pixels), referencePQ)
        print("high decode \(name): \(String(format: "%.2f", psnr)) dB in PQ, worst \(String(format: "%.4f", worst))")
        #expect(psnr >= 50, "\(name): \(psnr) dB")

        // The SDR base (display headroom 1) is far from the HDR reference: the test can tell.
        var sdr = Self.high
        sdr.displayHeadroom = 1
        let base = try JPEGCoder().decode(data, options: sdr)
        #expect(Self.psnr(Self.pqSignal(base.pixels), referencePQ).psnr < 40)
    }

    @Test(
        "Given an Ultra HDR JPEG, when decoded with .high at display headroom 1, 2 and the map's maximum, then headroom 1 is the SDR base's light, and the light rises with the headroom",
        .enabled(if: UltraHDRReference.isAvailable))
    func displayHeadroom() throws {
        let data = try #require(UltraHDRReference.fixtures["uhdr-scale4.jpg"])
        let standard = try JPEGCoder().decode(data, options: .default)
        let map = try #require(standard.gainMap)
        #expect(map.maximumDisplayHeadroom > 2)
        func decode(_ headroom: Double?) throws -> [Double] {
            var options = Self.high
            options.displayHeadroom = headroom
            return Self.pqSignal(try JPEGCoder().decode(data, options: options).pixels)
        }
        let one = try decode(1), two = try decode(2), full = try decode(nil)
        #expect(full == (try decode(map.maximumDisplayHeadroom)))
        // Headroom 1: the base's sRGB codes as linear light at 203 cd/m², in PQ.
        let expected = standard.pixels.bytes.enumerated().compactMap { i, code -> Double? in
            guard i % 4 != 3 else { return nil }
            let v = Double(code) / 255
            return GainMapRenditionTests.pq(Float(v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4)))
        }
        let offsets = map.metadata.channels[0].baseOffset != 0 || map.metadata.channels[0].alternateOffset != 0
        #expect(Self.psnr(one, expected).psnr >= (offsets ? 45 : 60))
        #expect(one.reduce(0, +) < two.reduce(0, +) && two.reduce(0, +) < full.reduce(0, +))
    }

    @Test("Given a map, when its HDR pixels are made, then they are hdrRendition's values in PQ within two 16-bit steps")
    func tablesMatchRendition() {
        let base = PixelBuffer(width: 3, height: 2, bytes: [0, 128, 255, 255, 30, 60, 90, 128, 255, 255, 255, 255, 1, 2, 3, 255, 200, 100, 50, 255, 17, 34, 51, 0])
        let map = GainMap(
            pixels: PixelBuffer(width: 2, height: 1, bytes: [0, 90, 255, 255, 255, 40, 7, 255]), channelCount: 3,
            metadata: GainMapMetadata(
                channels: [.init(gainMapMin: -0.5, gainMapMax: 3, gamma: 2.2, baseOffset: 1 / 64, alternateOffset: 1 / 32),
                           .init(gainMapMin: 0, gainMapMax: 2), .init(gainMapMin: 0.25, gainMapMax: 4, gamma: 0.6)],
                alternateHeadroom: 4))
        for headroom in [1.0, 3.0, 16.0] {
            let rendition = map.hdrRendition(of: base, displayHeadroom: headroom)
            let pixels = map.hdrPixels(of: base, displayHeadroom: headroom)
            #expect(pixels.format == .rgba16)
            let ours = Self.pqSignal(pixels)
            for (i, value) in rendition.values.enumerated() {
                #expect(abs(ours[i] - GainMapRenditionTests.pq(value)) <= 2.0 / 65535, "headroom \(headroom) sample \(i)")
            }
            #expect(pixels.withSamples16 { [$0[3], $0[23]] } == [65535, 0])
        }
    }

    @Test(
        "Given the iPhone HEIC with Apple's gain map, when decoded with .high, then RGBA16 PQ brighter than SDR white, equal to the map applied to the SDR decode",
        .enabled(if: AppleGainMapTests.sampleAvailable))
    func appleHEIC() throws {
        let data = try Data(contentsOf: Corpus.url(AppleGainMapTests.samplePath))
        // A thumbnail: the map is applied at the base's decoded size, and 12 MP of per-pixel
        // work is slow in a debug build.
        var options = DecodeOptions()
        options.thumbnailPixelSize = PixelSize(width: 400, height: 400)
        let standard = try HEIFCoder().decode(data, options: options)
        let map = try #require(standard.gainMap)
        options.dynamicRange = .high
        let image = try HEIFCoder().decode(data, options: options)
        #expect(image.pixelFormat == .rgba16 && image.gainMap == nil)
        #expect(image.colorProfile?.kind == .cicp(Self.pqCICP))
        #expect(image.pixelSize == standard.pixelSize)
        let signal = Self.pqSignal(image.pixels)
        // SDR white (203 cd/m²) is PQ 0.5807: the base alone never goes above it, the photo's
        // highlights with the map do.
        #expect((signal.max() ?? 0) > 0.59)
        #expect(signal == Self.pqSignal(map.hdrPixels(of: standard.pixels)))
    }

    @Test("Given a gain-map JPEG, when decoded with .high under a budget the 16-bit rendition exceeds, then imageTooLarge, not a larger allocation", .enabled(if: UltraHDRReference.isAvailable))
    func budget() throws {
        let data = try #require(UltraHDRReference.fixtures["uhdr-scale1.jpg"])
        var options = Self.high
        // 800×600: base and map fit (8 bytes a pixel), base and rendition (12) do not.
        options.limits.maxDecodedBytes = 800 * 600 * 10
        #expect(throws: WebImageError.self) { try JPEGCoder().decode(data, options: options) }
        options.dynamicRange = .standard
        #expect(try JPEGCoder().decode(data, options: options).gainMap != nil)
    }
}
