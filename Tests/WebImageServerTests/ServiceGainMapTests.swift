import Foundation
import Testing
import WebImage
import WebImageTesting

@testable import WebImageServer

/// Gain maps through the service (SPEC H-3, H-5): kept by `rs:fit` to JPEG, reported by `/info`.
@Suite(.serialized, .timeLimit(.minutes(5))) struct ServiceGainMapTests {
    struct HDRJSON: Decodable {
        struct Map: Decodable {
            var width: Int, height: Int, channels: Int
            var headroom: Double
        }
        var type: String
        var gain_map: Map?
        var bit_depth: Int?
    }

    struct InfoJSON: Decodable { var hdr: HDRJSON }

    @Test("Given an Ultra HDR JPEG, when rendered rs:fit:400 as JPEG, then the result keeps its map at the same fraction; /info reports it", .enabled(if: Corpus.isAvailable))
    func fitKeepsMap() async throws {
        let data = try Corpus.data("sdwebimage/TestHDR.jpeg")
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        harness.origin.route("/hdr.jpg", .ok(data, contentType: "image/jpeg"))
        let reply = try await harness.get(harness.plainPath("/hdr.jpg", options: "rs:fit:400:400", ext: "jpg"))
        #expect(reply.status == 200)
        let result = try JPEGCoder().decode(reply.body, options: .default)
        #expect(result.pixelSize == PixelSize(width: 267, height: 400))
        let map = try #require(result.gainMap, "\(String(describing: result.gainMapIssue))")
        #expect(map.pixelSize == result.pixelSize && map.channelCount == 3)
        #expect(abs(map.metadata.headroom - 16) < 1e-9)

        let info = try JSONDecoder().decode(InfoJSON.self, from: try await harness.get("/info" + harness.plainPath("/hdr.jpg")).body)
        #expect(info.hdr.type == "gain_map")
        #expect(info.hdr.gain_map?.width == 1662 && info.hdr.gain_map?.height == 2493 && info.hdr.gain_map?.channels == 3)
        #expect(info.hdr.gain_map?.headroom == 16)
    }

    /// Only `/info`: rendering this 12 MP HEIC (decoded whole, then resampled) takes minutes in a
    /// debug build on a loaded machine; the map's way into JPEG output is tested at the coder
    /// (`AppleGainMapTests`) and shares the JPEG map's geometry and writer tested above.
    @Test("Given an iPhone HEIC with Apple's gain map, when /info is asked, then hdr is a one-channel gain map at half size with the maker-note headroom", .enabled(if: Corpus.isAvailable))
    func heicInfo() async throws {
        let data = try Corpus.data("hdr/iphone-apple-gainmap.heic")
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        harness.origin.route("/iphone.heic", .ok(data, contentType: "image/heic"))
        let info = try JSONDecoder().decode(InfoJSON.self, from: try await harness.get("/info" + harness.plainPath("/iphone.heic")).body)
        #expect(info.hdr.type == "gain_map")
        #expect(info.hdr.gain_map?.channels == 1 && info.hdr.gain_map?.width == 2016 && info.hdr.gain_map?.height == 1512)
        #expect(abs((info.hdr.gain_map?.headroom ?? 0) - pow(2, 1.8)) < 0.01)
        #expect(info.hdr.bit_depth == 8)
    }

    @Test("Given 16-bit PNGs tagged PQ and HLG by cICP and an untagged 8-bit one, when /info is asked, then hdr says pq, hlg or none with the bit depth")
    func transferAndBitDepth() async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        let samples = (0..<(16 * 16 * 3)).map { UInt16(truncatingIfNeeded: $0 * 97) }
        for (name, transfer, expected) in [("pq", UInt8(16), "pq"), ("hlg", UInt8(18), "hlg"), ("sdr", UInt8(13), "none")] {
            let png = WidePNGWriter.png(width: 16, height: 16, channels: 3, samples: samples, chunks: [WidePNGWriter.cicp(primaries: 9, transfer: transfer)])
            harness.origin.route("/\(name).png", .ok(png, contentType: "image/png"))
            let info = try JSONDecoder().decode(InfoJSON.self, from: try await harness.get("/info" + harness.plainPath("/\(name).png")).body)
            #expect(info.hdr.type == expected, "\(name)")
            #expect(info.hdr.bit_depth == 16, "\(name)")
        }
        let plain = try PNGCoder().encode(Image(pixels: PixelBuffer(width: 4, height: 4, bytes: [UInt8](repeating: 200, count: 64))), format: .png, options: .default)
        harness.origin.route("/plain.png", .ok(plain, contentType: "image/png"))
        let info = try JSONDecoder().decode(InfoJSON.self, from: try await harness.get("/info" + harness.plainPath("/plain.png")).body)
        #expect(info.hdr.type == "none" && info.hdr.bit_depth == 8)
    }
}
