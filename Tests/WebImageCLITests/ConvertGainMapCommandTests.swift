import Foundation
import Testing
import WebImageCodecs
import WebImageCore
import WebImageTesting

@Suite("webimage convert: gain maps")
struct ConvertGainMapCommandTests {
    @Test(
        "Given an Ultra HDR JPEG made by libultrahdr (map at 1/4), when `webimage convert --thumbnail 400` writes JPEG, then libultrahdr reads the output's map at the same fraction with the same ISO block",
        .enabled(if: UltraHDRReference.isAvailable))
    func thumbnailKeepsGainMap() async throws {
        let source = try #require(UltraHDRReference.fixtures["uhdr-scale4.jpg"])
        let original = try UltraHDRReference.check(source)
        let directory = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("uhdr.jpg")
        try source.write(to: input)
        let output = directory.appendingPathComponent("thumb.jpg")
        let result = try await CLIRunner.run(["convert", input.path, output.path, "--thumbnail", "400"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let written = try Data(contentsOf: output)
        let read = try UltraHDRReference.check(written)
        #expect(read["hdr_width"] as? Int == 400 && read["hdr_height"] as? Int == 300)
        #expect(read["map_width"] as? Int == 100 && read["map_height"] as? Int == 75, "\(read)")
        #expect(read["map_components"] as? Int == original["map_components"] as? Int)
        #expect(read["iso"] as? String == original["iso"] as? String)
        let image = try JPEGCoder().decode(written, options: .default)
        #expect(image.gainMap?.pixelSize == PixelSize(width: 100, height: 75))
    }
}
