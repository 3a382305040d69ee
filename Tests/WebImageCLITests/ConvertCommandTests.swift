import Foundation
import Testing
import WebImageCodecs
import WebImageCore
import WebImageTesting

@Suite("webimage convert")
struct ConvertCommandTests {
    /// Corpus stills per format with their size; the round trip uses the first whose format a
    /// registered coder both decodes and encodes.
    static let candidates: [(path: String, format: ImageFormat, size: PixelSize)] = [
        ("sdwebimage/TestImage.png", .png, PixelSize(width: 300, height: 300)),
        ("sdwebimage/TestImageStatic.webp", .webp, PixelSize(width: 550, height: 368)),
        ("sdwebimage/TestImage.jpg", .jpeg, PixelSize(width: 80, height: 60)),
        ("generated-valid/1x1.gif", .gif, PixelSize(width: 1, height: 1)),
    ]

    static var roundTripCase: (path: String, format: ImageFormat, size: PixelSize)? {
        guard Corpus.isAvailable else { return nil }
        return candidates.first { candidate in
            guard let data = try? Corpus.data(candidate.path) else { return false }
            return CodersManager.shared.canDecode(data) && CodersManager.shared.canEncode(candidate.format)
        }
    }

    @Test(
        "Given a still image, when converted to a thumbnail of its own format, then the output decodes within the thumbnail size",
        .enabled(if: roundTripCase != nil))
    func roundTrip() async throws {
        let sample = try #require(Self.roundTripCase)
        let directory = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("thumb.\(sample.format.fileExtension)")
        let result = try await CLIRunner.run(["convert", Corpus.url(sample.path).path, output.path, "--thumbnail", "64"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout.contains(output.path))
        let image = try CodersManager.shared.decode(Data(contentsOf: output), options: .default)
        #expect(image.format == sample.format)
        let expected = ThumbnailSizing.fit(sample.size, within: PixelSize(width: 64, height: 64), preserveAspectRatio: true)
        #expect(image.pixelSize == expected)
    }

    @Test(
        "Given --format and --quality, when converting to JPEG, then the output is a JPEG",
        .enabled(if: roundTripCase != nil && CodersManager.shared.canEncode(.jpeg)))
    func explicitFormat() async throws {
        let sample = try #require(Self.roundTripCase)
        let directory = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("out.bin")
        let result = try await CLIRunner.run(["convert", Corpus.url(sample.path).path, output.path, "--format", "jpeg", "--quality", "70"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(ImageFormat.detect(try Data(contentsOf: output)) == .jpeg)
    }

    @Test(
        "Given a size budget, when converting to WebP with --max-file-size, then the output is smaller than without a budget",
        .enabled(if: roundTripCase != nil && CodersManager.shared.canEncode(.webp)))
    func maxFileSize() async throws {
        let sample = try #require(Self.roundTripCase)
        let directory = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let unbounded = directory.appendingPathComponent("full.webp")
        let bounded = directory.appendingPathComponent("small.webp")
        let path = Corpus.url(sample.path).path
        #expect(try await CLIRunner.run(["convert", path, unbounded.path, "--quality", "100"]).status == 0)
        let result = try await CLIRunner.run(["convert", path, bounded.path, "--quality", "100", "--max-file-size", "2000"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let full = try Data(contentsOf: unbounded).count
        let small = try Data(contentsOf: bounded).count
        // Best effort (EncodeOptions.maxFileSize): the budget must at least have made it smaller.
        if full > 2000 { #expect(small < full) }
    }

    @Test(
        "Given --resize and --grayscale, when converting, then the output has the requested size and grey pixels",
        .enabled(if: roundTripCase != nil))
    func transforms() async throws {
        let sample = try #require(Self.roundTripCase)
        let directory = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("t.\(sample.format.fileExtension)")
        let result = try await CLIRunner.run([
            "convert", Corpus.url(sample.path).path, output.path, "--resize", "20x10", "--grayscale", "--lossless",
        ])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let image = try CodersManager.shared.decode(Data(contentsOf: output), options: .default)
        #expect(image.pixelSize == PixelSize(width: 20, height: 10))
        if sample.format == .png {  // lossless: grey stays exactly grey
            let pixel = image.pixels.pixel(x: 10, y: 5)
            #expect(pixel.r == pixel.g && pixel.g == pixel.b)
        }
    }

    @Test("Given a malformed input, when converted, then an error is printed, nothing is written, and the exit code is non-zero", .enabled(if: Corpus.isAvailable))
    func malformedInput() async throws {
        let directory = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("out.png")
        let result = try await CLIRunner.run(["convert", Corpus.url("malformed/generated/html_404_named.jpg").path, output.path])
        #expect(result.status != 0)
        #expect(result.stderr.contains("error:"))
        #expect(result.stderr.contains("bad image data"))
        #expect(!FileManager.default.fileExists(atPath: output.path))
    }

    @Test("Given bad arguments, when convert runs, then usage is printed and the exit code is non-zero", arguments: [
        ["convert"],
        ["convert", "in.png"],
        ["convert", "in.png", "out.unknownext"],
        ["convert", "in.png", "out.png", "--format", "bogus"],
        ["convert", "in.png", "out.png", "--quality", "150"],
        ["convert", "in.png", "out.png", "--thumbnail", "0"],
        ["convert", "in.png", "out.png", "--no-such-flag"],
        ["convert", "in.png", "out.png", "--resize", "20by10"],
    ])
    func badArguments(arguments: [String]) async throws {
        let result = try await CLIRunner.run(arguments)
        #expect(result.status != 0)
        #expect(result.stderr.contains("Usage:") || result.stderr.contains("Error:"))
    }
}
