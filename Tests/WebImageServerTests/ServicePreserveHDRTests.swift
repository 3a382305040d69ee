import Foundation
import Testing
import WebImage
import WebImageTesting

@testable import WebImageServer

/// imgproxy 4's `preserve_hdr` (SPEC H-5): a PQ source stays PQ at high bit depth in PNG and
/// AVIF results; without it, and in outputs that cannot carry it, it is tone-mapped to SDR.
@Suite(.serialized, .timeLimit(.minutes(5))) struct ServicePreserveHDRTests {
    static let width = 32, height = 16

    /// A 16-bit PQ grey ramp (cICP 9/16), codes that are not 8-bit values widened.
    static let source: Data = {
        let samples = (0..<(width * height)).flatMap { i -> [UInt16] in
            let v = UInt16(i * 49_151 / (width * height - 1)) | 1
            return [v, v, v]
        }
        return WidePNGWriter.png(width: width, height: height, channels: 3, samples: samples, chunks: [WidePNGWriter.cicp(primaries: 9, transfer: 16)])
    }()

    static let pq = CICP(colorPrimaries: 9, transferCharacteristics: 16, matrixCoefficients: 0, fullRange: true)

    static func wide() -> DecodeOptions {
        var options = DecodeOptions()
        options.dynamicRange = .high
        return options
    }

    @Test("Given a 16-bit PQ PNG, when rendered rs:fit:16 as PNG with preserve_hdr:1, then the result is 16-bit with cICP 9/16 and keeps more than 8 bits; without it, 8-bit untagged SDR")
    func pngKeepsHDR() async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        harness.origin.route("/pq.png", .ok(Self.source, contentType: "image/png"))

        let kept = try await harness.get(harness.plainPath("/pq.png", options: "rs:fit:16:16/preserve_hdr:1", ext: "png"))
        #expect(kept.status == 200)
        #expect(kept.body[24] == 16, "IHDR bit depth")
        let image = try PNGCoder().decode(kept.body, options: Self.wide())
        #expect(image.pixelSize == PixelSize(width: 16, height: 8))
        #expect(image.colorProfile?.kind == .cicp(Self.pq))
        let beyond = image.pixels.withSamples16 { $0.enumerated().filter { $0.offset % 4 != 3 && $0.element % 257 != 0 }.count }
        #expect(beyond > 16 * 8)

        let sdr = try await harness.get(harness.plainPath("/pq.png", options: "rs:fit:16:16", ext: "png"))
        #expect(sdr.status == 200)
        #expect(sdr.body[24] == 8, "IHDR bit depth")
        #expect(try PNGCoder().decode(sdr.body, options: Self.wide()).colorProfile == nil)

        let off = try await harness.get(harness.plainPath("/pq.png", options: "rs:fit:16:16/preserve_hdr:0", ext: "png"))
        #expect(off.body == sdr.body)
    }

    @Test("Given a 16-bit PQ PNG, when rendered as AVIF with preserve_hdr:1, then the AVIF is 10-bit with CICP 9/16")
    func avifKeepsHDR() async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        harness.origin.route("/pq.png", .ok(Self.source, contentType: "image/png"))
        let kept = try await harness.get(harness.plainPath("/pq.png", options: "preserve_hdr:1", ext: "avif"))
        #expect(kept.status == 200)
        let header = try AVIFCoder().readMetadata(kept.body)
        #expect(header.bitDepth == 10)
        let image = try AVIFCoder().decode(kept.body, options: Self.wide())
        #expect(image.pixels.format == .rgba16)
        guard case .cicp(let cicp) = image.colorProfile?.kind else {
            Issue.record("no CICP: \(String(describing: image.colorProfile))")
            return
        }
        #expect(cicp.colorPrimaries == 9 && cicp.transferCharacteristics == 16)

        let sdr = try await harness.get(harness.plainPath("/pq.png", ext: "avif"))
        #expect(try AVIFCoder().readMetadata(sdr.body).bitDepth == 8)
    }

    @Test("Given a 16-bit PQ PNG, when rendered as JPEG with preserve_hdr:1, then a gain-map JPEG over the same tone-mapped SDR picture as without the option")
    func jpegGetsGainMap() async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        harness.origin.route("/pq.png", .ok(Self.source, contentType: "image/png"))
        let kept = try await harness.get(harness.plainPath("/pq.png", options: "preserve_hdr:1", ext: "jpg"))
        let plain = try await harness.get(harness.plainPath("/pq.png", ext: "jpg"))
        let off = try await harness.get(harness.plainPath("/pq.png", options: "preserve_hdr:0", ext: "jpg"))
        #expect(kept.status == 200 && plain.status == 200 && off.status == 200)
        #expect(off.body == plain.body)
        let withMap = try JPEGCoder().decode(kept.body, options: .default)
        let without = try JPEGCoder().decode(plain.body, options: .default)
        let map = try #require(withMap.gainMap)
        #expect(map.channelCount == 1 && map.pixelSize == PixelSize(width: Self.width / 4, height: Self.height / 4))
        #expect(without.gainMap == nil)
        #expect(withMap.pixels.bytes == without.pixels.bytes)
    }

    @Test("Given the service's preserve-hdr setting on, when a PNG is asked for without the option, then HDR is kept; preserve_hdr:0 drops to SDR")
    func settingKeepsHDR() async throws {
        let harness = try await ServiceHarness.start { $0.preserveHDR = true }
        defer { Task { await harness.stop() } }
        harness.origin.route("/pq.png", .ok(Self.source, contentType: "image/png"))
        let kept = try await harness.get(harness.plainPath("/pq.png", ext: "png"))
        #expect(kept.body[24] == 16)
        let dropped = try await harness.get(harness.plainPath("/pq.png", options: "preserve_hdr:0", ext: "png"))
        #expect(dropped.body[24] == 8)
    }

    @Test("Given preserve_hdr, when parsed, then it sets the option and enters the canonical text")
    func parses() throws {
        let options = try ProcessingOptions.parse(segments: ["w:10", "preserve_hdr:1"], presets: PresetTable())
        #expect(options.preserveHDR == true)
        let plain = try ProcessingOptions.parse(segments: ["w:10"], presets: PresetTable())
        #expect(plain.preserveHDR == nil)
        #expect(options.canonicalForm != plain.canonicalForm)
        #expect(try ProcessingOptions.parse(segments: ["w:10", "preserve_hdr:0"], presets: PresetTable()).canonicalForm != options.canonicalForm)
    }
}
