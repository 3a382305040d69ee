import Foundation
import Testing
import WebImageCodecs
import WebImageCore
import WebImageTesting

@Suite("webimage convert: --hdr on a gain-map JPEG")
struct ConvertGainMapHDRCommandTests {
    @Test(
        "Given an Ultra HDR JPEG, when `webimage convert --hdr` writes AVIF, then a 10-bit AVIF in PQ (CICP 1/16) above SDR white; when it writes JPEG, the map is kept as a map",
        .enabled(if: UltraHDRReference.isAvailable))
    func hdrRendition() async throws {
        let source = try #require(UltraHDRReference.fixtures["uhdr-scale4.jpg"])
        let directory = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("uhdr.jpg")
        try source.write(to: input)

        let avif = directory.appendingPathComponent("hdr.avif")
        let result = try await CLIRunner.run(["convert", input.path, avif.path, "--hdr", "--thumbnail", "200"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let written = try Data(contentsOf: avif)
        #expect(try AVIFCoder().readMetadata(written).bitDepth == 10)
        var options = DecodeOptions()
        options.dynamicRange = .high
        let image = try AVIFCoder().decode(written, options: options)
        guard case .cicp(let cicp)? = image.colorProfile?.kind else {
            Issue.record("no CICP: \(String(describing: image.colorProfile))")
            return
        }
        #expect(cicp.colorPrimaries == 1 && cicp.transferCharacteristics == 16)
        // SDR white is PQ 0.58 (203 cd/m²); the fixture's highlights are brighter.
        let brightest = image.pixels.withSamples16 { s in s.enumerated().filter { $0.offset % 4 != 3 }.map(\.element).max() ?? 0 }
        #expect(Double(brightest) / 65535 > 0.7)

        let jpeg = directory.appendingPathComponent("hdr.jpg")
        let kept = try await CLIRunner.run(["convert", input.path, jpeg.path, "--hdr", "--thumbnail", "200"])
        #expect(kept.status == 0, "stderr: \(kept.stderr)")
        #expect(try JPEGCoder().decode(try Data(contentsOf: jpeg), options: .default).gainMap != nil)
    }
}
