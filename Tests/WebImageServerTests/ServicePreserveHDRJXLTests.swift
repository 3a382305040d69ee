import Foundation
import Testing
import WebImage
import WebImageTesting

@testable import WebImageServer

/// `preserve_hdr` with JPEG XL results (SPEC H-5), read back by libjxl's own tools (`djxl`,
/// `jxlinfo`): the PQ signal and more than 8 bits are kept.
@Suite(.serialized, .timeLimit(.minutes(5))) struct ServicePreserveHDRJXLTests {
    @Test("Given a 16-bit PQ PNG, when rendered as JPEG XL with preserve_hdr:1, then jxlinfo reports 16 bits and PQ, and djxl's PNG keeps more than 8 bits; without it, 8 bits")
    func jxlKeepsHDR() async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        harness.origin.route("/pq.png", .ok(ServicePreserveHDRTests.source, contentType: "image/png"))
        let kept = try await harness.get(harness.plainPath("/pq.png", options: "preserve_hdr:1/q:100", ext: "jxl"))
        #expect(kept.status == 200)
        let info = try DJXLTool.info(kept.body)
        print("jxlinfo: \(info)")
        #expect(info.contains("16-bit") || info.contains("16 bits"))
        #expect(info.contains("PQ"))
        let png = try DJXLTool.decodePNG(kept.body)
        #expect(png[24] == 16, "IHDR bit depth of djxl's PNG")
        var options = DecodeOptions()
        options.preferredPixelFormat = .rgba16
        options.colorManagement = .ignore
        let samples = try PNGCoder().decode(png, options: options)
        let beyond = samples.pixels.withSamples16 { $0.enumerated().filter { $0.offset % 4 != 3 && $0.element % 257 != 0 }.count }
        #expect(beyond > samples.width * samples.height)

        let sdr = try await harness.get(harness.plainPath("/pq.png", ext: "jxl"))
        #expect(try DJXLTool.info(sdr.body).contains("8-bit") || (try DJXLTool.info(sdr.body)).contains("8 bits"))
    }
}
