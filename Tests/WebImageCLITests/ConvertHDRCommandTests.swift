import Foundation
import Testing
import WebImageCodecs
import WebImageCore
import WebImageTesting

@Suite("webimage convert: --hdr")
struct ConvertHDRCommandTests {
    @Test("Given a 16-bit PQ PNG, when `webimage convert --hdr` writes PNG, then the output is 16-bit with cICP 9/16; without --hdr it is 8-bit SDR")
    func hdrKeepsPQ() async throws {
        let samples = (0..<(16 * 8)).flatMap { i -> [UInt16] in
            let v = UInt16(i * 383) | 1
            return [v, v, v]
        }
        let source = WidePNGWriter.png(width: 16, height: 8, channels: 3, samples: samples, chunks: [WidePNGWriter.cicp(primaries: 9, transfer: 16)])
        let directory = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("pq.png")
        try source.write(to: input)

        let hdr = directory.appendingPathComponent("hdr.png")
        let kept = try await CLIRunner.run(["convert", input.path, hdr.path, "--hdr"])
        #expect(kept.status == 0, "stderr: \(kept.stderr)")
        let written = try Data(contentsOf: hdr)
        #expect(written[24] == 16, "IHDR bit depth")
        var options = DecodeOptions()
        options.dynamicRange = .high
        let image = try PNGCoder().decode(written, options: options)
        #expect(image.colorProfile?.kind == .cicp(CICP(colorPrimaries: 9, transferCharacteristics: 16, matrixCoefficients: 0, fullRange: true)))
        #expect(image.pixels.withSamples16 { Array($0) }[0] == samples[0])

        let sdr = directory.appendingPathComponent("sdr.png")
        let plain = try await CLIRunner.run(["convert", input.path, sdr.path])
        #expect(plain.status == 0, "stderr: \(plain.stderr)")
        #expect(try Data(contentsOf: sdr)[24] == 8)
    }

    @Test("Given a 16-bit PQ PNG, when `webimage convert --hdr` writes JPEG, then the JPEG carries a one-channel gain map at 1/4 over the same SDR picture as without --hdr")
    func hdrToGainMapJPEG() async throws {
        let (width, height) = (64, 32)
        let samples = (0..<(width * height)).flatMap { i -> [UInt16] in
            let v = UInt16(i * 65_535 / (width * height - 1))
            return [v, v / 2 | 1, v]
        }
        let source = WidePNGWriter.png(width: width, height: height, channels: 3, samples: samples, chunks: [WidePNGWriter.cicp(primaries: 9, transfer: 16)])
        let directory = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("pq.png")
        try source.write(to: input)

        let hdr = directory.appendingPathComponent("hdr.jpg"), sdr = directory.appendingPathComponent("sdr.jpg")
        let kept = try await CLIRunner.run(["convert", input.path, hdr.path, "--hdr"])
        #expect(kept.status == 0, "stderr: \(kept.stderr)")
        let plain = try await CLIRunner.run(["convert", input.path, sdr.path])
        #expect(plain.status == 0, "stderr: \(plain.stderr)")
        let withMap = try JPEGCoder().decode(try Data(contentsOf: hdr), options: .default)
        let without = try JPEGCoder().decode(try Data(contentsOf: sdr), options: .default)
        let map = try #require(withMap.gainMap)
        #expect(map.channelCount == 1 && map.pixelSize == PixelSize(width: 16, height: 8))
        #expect(map.metadata.channels[0].gainMapMax > 1)
        #expect(without.gainMap == nil)
        #expect(withMap.pixels.bytes == without.pixels.bytes)
    }
}
