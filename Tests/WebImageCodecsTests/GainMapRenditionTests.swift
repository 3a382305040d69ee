import Foundation
import Testing
import WebImageCodecs
import WebImageCore
import WebImageTesting

@Suite("Gain maps: the HDR rendition (ISO 21496-1) against libultrahdr's", .serialized)
struct GainMapRenditionTests {
    static func pq(_ linear: Float) -> Double {
        let y = pow(Double(max(0, linear)) * 203 / 10_000, 0.1593017578125)
        return pow((0.8359375 + 18.8515625 * y) / (1 + 18.6875 * y), 78.84375)
    }

    /// PSNR of `a` against `b` after the PQ curve (1.0 = 203 cd/m²), and the largest difference in PQ.
    static func pqPSNR(_ a: [Float], _ b: [Float]) -> (psnr: Double, worst: Double) {
        var sum = 0.0, worst = 0.0
        for (x, y) in zip(a, b) {
            let d = pq(x) - pq(y)
            sum += d * d
            worst = max(worst, abs(d))
        }
        return (10 * log10(1 / max(sum / Double(a.count), 1e-12)), worst)
    }

    @Test(
        "Given libultrahdr's files (map at 1 and 1/4), three-channel ISO metadata, Ultra HDR XMP alone, and a grey map with gamma 2.2 and offsets in both forms, when our rendition at full headroom is compared with libultrahdr's in the same primaries, then PSNR in PQ is at least 50 dB",
        .enabled(if: UltraHDRReference.isAvailable),
        arguments: ["uhdr-scale1.jpg", "uhdr-scale4.jpg", "multi-iso-only.jpg", "grey-gamma-both.jpg", "xmp-only.jpg"])
    func matchesLibultrahdr(name: String) throws {
        let data = try #require(UltraHDRReference.fixtures[name])
        // The fixtures' base is Display P3 (libultrahdr's ICC profile). libultrahdr applies a
        // three-component map after converting the base to BT.709, which is what our sRGB decode
        // gives; a one-component map it applies to the base as stored and returns in the base's
        // primaries. A one-channel gain is the same in any primaries (white is kept), so the two
        // are the same colours; compare them in libultrahdr's: the base kept as stored.
        let oneComponent = try UltraHDRReference.check(data)["map_components"] as? Int == 1
        var options = DecodeOptions.default
        if oneComponent { options.colorManagement = .preserve }
        let image = try JPEGCoder().decode(data, options: options)
        let map = try #require(image.gainMap)
        let ours = map.hdrRendition(of: image.pixels, displayHeadroom: .infinity)
        let reference = try UltraHDRReference.rendition(data)
        #expect(reference.width == ours.width && reference.height == ours.height)
        let (psnr, worst) = Self.pqPSNR(ours.values, reference.values)
        print("rendition \(name): \(String(format: "%.2f", psnr)) dB in PQ, worst \(String(format: "%.4f", worst))")
        #expect(psnr >= 50, "\(name): \(psnr) dB")
        // And the HDR is brighter than SDR white somewhere: the map does something (the XMP-only
        // fixture's gamma 0.5 and maximum 1.8 on libultrahdr's map keep it below white).
        if name != "xmp-only.jpg" { #expect((ours.values.max() ?? 0) > 1.2) }
    }

    @Test("Given a map, when rendered for an SDR display (headroom 1), then the rendition is the base's linear values")
    func sdrDisplayGetsBase() {
        let base = PixelBuffer(width: 2, height: 1, bytes: [0, 128, 255, 255, 30, 60, 90, 255])
        let map = GainMap(
            pixels: PixelBuffer(width: 1, height: 1, bytes: [255, 255, 255, 255]), channelCount: 1,
            metadata: GainMapMetadata(channels: [.init(gainMapMin: 0, gainMapMax: 2)], alternateHeadroom: 2))
        let sdr = map.hdrRendition(of: base, displayHeadroom: 1)
        for (i, code) in [0, 128, 255, 30, 60, 90].enumerated() {
            let v = Double(code) / 255
            let linear = v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4)
            #expect(abs(Double(sdr.values[i]) - linear) < 1e-5)
        }
        // Halfway in log2 headroom gets half the log gain: white × 2 (plus the offsets' effect).
        let half = map.hdrRendition(of: base, displayHeadroom: 2)
        #expect(abs(Double(half.values[2]) - ((1 + 1.0 / 64) * 2 - 1.0 / 64)) < 1e-4)
    }
}
