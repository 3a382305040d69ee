import Foundation
import Testing
import WebImage
import WebImageTesting

@testable import WebImageServer

/// `preserve_hdr` on a gain-map source (SPEC H-5): AVIF, PNG and JPEG XL results are the HDR
/// rendition (the map applied, PQ); JPEG results keep the map as a map.
@Suite(.serialized, .timeLimit(.minutes(5))) struct ServiceGainMapHDRTests {
    static let pq = CICP(colorPrimaries: 1, transferCharacteristics: 16, matrixCoefficients: 0, fullRange: true)

    static func wide() -> DecodeOptions {
        var options = DecodeOptions()
        options.dynamicRange = .high
        return options
    }

    @Test(
        "Given an Ultra HDR JPEG, when rendered rs:fit:200 as AVIF with preserve_hdr:1, then a 10-bit AVIF with CICP 1/16 whose highlights are above SDR white, close to the library's own HDR decode; without the option an 8-bit SDR AVIF; as JPEG, the map kept",
        .enabled(if: UltraHDRReference.isAvailable))
    func avifIsHDRRendition() async throws {
        let data = try #require(UltraHDRReference.fixtures["uhdr-scale4.jpg"])
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        harness.origin.route("/uhdr.jpg", .ok(data, contentType: "image/jpeg"))

        let kept = try await harness.get(harness.plainPath("/uhdr.jpg", options: "rs:fit:200:200/preserve_hdr:1", ext: "avif"))
        #expect(kept.status == 200)
        #expect(try AVIFCoder().readMetadata(kept.body).bitDepth == 10)
        let image = try AVIFCoder().decode(kept.body, options: Self.wide())
        #expect(image.pixelSize == PixelSize(width: 200, height: 150))
        #expect(image.pixels.format == .rgba16)
        guard case .cicp(let cicp) = image.colorProfile?.kind else {
            Issue.record("no CICP: \(String(describing: image.colorProfile))")
            return
        }
        #expect(cicp.colorPrimaries == 1 && cicp.transferCharacteristics == 16)
        // SDR white (203 cd/m²) is PQ 0.58: the fixture's highlights (3.5× SDR white) are above.
        let signal = image.pixels.withSamples16 { s in s.enumerated().filter { $0.offset % 4 != 3 }.map { Double($0.element) / 65535 } }
        #expect((signal.max() ?? 0) > 0.7)
        // The library's HDR decode, resized the same way, is what the service encoded (to
        // AVIF's lossy coding at 10 bits).
        var options = Self.wide()
        options.thumbnailPixelSize = PixelSize(width: 200, height: 200)
        let library = try JPEGCoder().decode(data, options: options)
        let expected = library.pixels.withSamples16 { s in s.enumerated().filter { $0.offset % 4 != 3 }.map { Double($0.element) / 65535 } }
        #expect(expected.count == signal.count)
        let mse = zip(signal, expected).reduce(0.0) { $0 + ($1.0 - $1.1) * ($1.0 - $1.1) } / Double(max(signal.count, 1))
        #expect(10 * log10(1 / max(mse, 1e-12)) > 30)

        let sdr = try await harness.get(harness.plainPath("/uhdr.jpg", options: "rs:fit:200:200", ext: "avif"))
        #expect(try AVIFCoder().readMetadata(sdr.body).bitDepth == 8)

        let jpeg = try await harness.get(harness.plainPath("/uhdr.jpg", options: "rs:fit:200:200/preserve_hdr:1", ext: "jpg"))
        #expect(try JPEGCoder().decode(jpeg.body, options: .default).gainMap != nil)
    }

    @Test(
        "Given an Ultra HDR JPEG, when rendered as PNG with preserve_hdr:1, then a 16-bit PNG with cICP 1/16 and more than 8 bits",
        .enabled(if: UltraHDRReference.isAvailable))
    func pngIsHDRRendition() async throws {
        let data = try #require(UltraHDRReference.fixtures["uhdr-scale1.jpg"])
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        harness.origin.route("/uhdr.jpg", .ok(data, contentType: "image/jpeg"))
        let kept = try await harness.get(harness.plainPath("/uhdr.jpg", options: "rs:fit:100:100/preserve_hdr:1", ext: "png"))
        #expect(kept.status == 200)
        #expect(kept.body[24] == 16, "IHDR bit depth")
        let image = try PNGCoder().decode(kept.body, options: Self.wide())
        #expect(image.colorProfile?.kind == .cicp(Self.pq))
        let beyond = image.pixels.withSamples16 { $0.enumerated().filter { $0.offset % 4 != 3 && $0.element % 257 != 0 }.count }
        #expect(beyond > image.width * image.height)
    }
}
