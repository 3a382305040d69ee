import Foundation
import Testing
import WebImageCodecs
import WebImageCore
import WebImageTesting

/// Still and animated files of every format with a header reader, and their manifest entries.
private let infoSamples = [
    "sdwebimage/TestImage.jpg", "exif-orientation/Landscape_6.jpg", "sdwebimage/TestImage.png",
    "generated-valid/anim_6f_64x48.apng", "generated-valid/anim_6f_loop3_64x48.gif",
    "sdwebimage/TestImageStatic.webp", "generated-valid/anim_6f_lossy_64x48.webp",
    "generated-valid/still_64x48.heic", "generated-valid/still_64x48.avif",
]

@Suite("webimage info")
struct InfoCommandTests {
    /// Parses the tool's JSON lines into dictionaries.
    static func jsonObjects(_ output: String) throws -> [[String: Any]] {
        try output.split(separator: "\n").map { line in
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8))
            return try #require(object as? [String: Any])
        }
    }

    @Test("Given corpus files, when info --json runs, then each line has the manifest's facts and the exit code is 0", .enabled(if: Corpus.isAvailable))
    func json() async throws {
        let result = try await CLIRunner.run(["info", "--json"] + infoSamples.map { Corpus.url($0).path })
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let objects = try Self.jsonObjects(result.stdout)
        try #require(objects.count == infoSamples.count)
        for (path, object) in zip(infoSamples, objects) {
            let entry = try #require(Corpus.manifest.first { $0.path == path })
            #expect(Set(object.keys) == ["file", "format", "width", "height", "frames", "loopCount", "orientation", "animated", "colorProfile", "error"])
            #expect(object["file"] as? String == Corpus.url(path).path)
            #expect(object["width"] as? Int == entry.width, "\(path)")
            #expect(object["height"] as? Int == entry.height, "\(path)")
            #expect(object["animated"] as? Bool == entry.animated.hasPrefix("yes"), "\(path)")
            #expect(object["error"] is NSNull, "\(path)")
            #expect(object["frames"] as? Int == entry.frames, "\(path)")
        }
        #expect(objects[1]["orientation"] as? Int == 6)
        #expect(objects[4]["loopCount"] as? Int == 3)
    }

    @Test("Given a malformed file among good ones, when info runs, then it reports the error, goes on, and exits non-zero", .enabled(if: Corpus.isAvailable))
    func malformed() async throws {
        let good = Corpus.url("sdwebimage/TestImage.jpg").path
        let bad = Corpus.url("malformed/generated/html_404_named.jpg").path
        let text = try await CLIRunner.run(["info", bad, good])
        #expect(text.status != 0)
        #expect(text.stdout.contains("bad image data"))
        #expect(text.stdout.contains("80x60"))
        #expect(!text.stdout.contains("\u{1B}["), "no colour when stdout is not a terminal")

        let json = try await CLIRunner.run(["info", "--json", bad, good])
        #expect(json.status != 0)
        let objects = try Self.jsonObjects(json.stdout)
        #expect(objects.count == 2)
        #expect((objects[0]["error"] as? String)?.hasPrefix("bad image data") == true)
        #expect(objects[1]["error"] is NSNull)
    }

    @Test("Given a missing file, when info runs, then the exit code is non-zero")
    func missingFile() async throws {
        let result = try await CLIRunner.run(["info", "--json", "/nonexistent/image.png"])
        #expect(result.status != 0)
        let objects = try Self.jsonObjects(result.stdout)
        #expect((objects.first?["error"] as? String)?.contains("cannot read file") == true)
    }

    @Test(
        "Given decodable files, when info --decode runs, then decodeMs is reported and frames match",
        .enabled(if: Corpus.isAvailable && !CodersManager.shared.coders.isEmpty))
    func decode() async throws {
        let decodable = try infoSamples.filter { CodersManager.shared.canDecode(try Corpus.data($0)) }
        try #require(!decodable.isEmpty)
        let result = try await CLIRunner.run(["info", "--json", "--decode"] + decodable.map { Corpus.url($0).path })
        #expect(result.status == 0, "stdout: \(result.stdout)")
        for object in try Self.jsonObjects(result.stdout) {
            #expect(object["decodeMs"] is Double || object["decodeMs"] is Int)
            #expect(object["error"] is NSNull)
        }
    }

    @Test("Given an unknown flag, when info runs, then usage is printed and the exit code is non-zero")
    func badFlag() async throws {
        let result = try await CLIRunner.run(["info", "--bogus", "x.png"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("Usage:"))
        let none = try await CLIRunner.run(["info"])
        #expect(none.status != 0)
    }
}
