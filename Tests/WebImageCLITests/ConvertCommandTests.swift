import Foundation
import Testing
import WebImageCodecs
import WebImageCore
import WebImageTesting

@Suite("webimage convert")
struct ConvertCommandTests {
    static let source = "sdwebimage/TestImage.png"

    static var canRoundTrip: Bool {
        guard Corpus.isAvailable, let data = try? Corpus.data(source) else { return false }
        return CodersManager.shared.canDecode(data) && CodersManager.shared.canEncode(.png)
    }

    @Test("Given a PNG, when converted to a PNG thumbnail, then the output decodes to at most the thumbnail size", .enabled(if: canRoundTrip))
    func roundTrip() throws {
        let directory = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("thumb.png")
        let result = try CLIRunner.run(["convert", Corpus.url(Self.source).path, output.path, "--thumbnail", "64"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let image = try CodersManager.shared.decode(Data(contentsOf: output), options: .default)
        #expect(image.format == .png)
        #expect(image.width == 64 && image.height == 64)  // 300x300 fit into 64x64
    }

    @Test(
        "Given --format and --quality, when converting to JPEG, then the output is a JPEG",
        .enabled(if: canRoundTrip && CodersManager.shared.canEncode(.jpeg)))
    func explicitFormat() throws {
        let directory = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("out.bin")
        let result = try CLIRunner.run(["convert", Corpus.url(Self.source).path, output.path, "--format", "jpeg", "--quality", "70"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(ImageFormat.detect(try Data(contentsOf: output)) == .jpeg)
    }

    @Test("Given a malformed input, when converted, then an error is printed, nothing is written, and the exit code is non-zero", .enabled(if: Corpus.isAvailable))
    func malformedInput() throws {
        let directory = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("out.png")
        let result = try CLIRunner.run(["convert", Corpus.url("malformed/generated/html_404_named.jpg").path, output.path])
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
    ])
    func badArguments(arguments: [String]) throws {
        let result = try CLIRunner.run(arguments)
        #expect(result.status != 0)
        #expect(result.stderr.contains("Usage:") || result.stderr.contains("Error:"))
    }
}
