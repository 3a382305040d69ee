import Foundation
import Testing
import WebImageCodecs
import WebImageCore
import WebImageTesting

/// `webimage info --placeholders`: BlurHash, ThumbHash and dominant colours per file, equal to
/// the library's from the same small decode (SPEC V-14).
@Suite("webimage info --placeholders", .enabled(if: Corpus.isAvailable))
struct InfoPlaceholdersCommandTests {
    static let samples = ["sdwebimage/TestImage.jpg", "exif-orientation/Landscape_6.jpg", "generated-valid/anim_6f_loop3_64x48.gif"]

    @Test("Given corpus files, when info --placeholders --json runs, then each line has the library's placeholders")
    func json() async throws {
        let result = try await CLIRunner.run(["info", "--placeholders", "--json"] + Self.samples.map { Corpus.url($0).path })
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let objects = try InfoCommandTests.jsonObjects(result.stdout)
        try #require(objects.count == Self.samples.count)
        for (path, object) in zip(Self.samples, objects) {
            let image = try CodersManager.shared.decode(try Corpus.data(path), options: ImagePlaceholder.decodeOptions())
            let summary = ImagePlaceholder.summary(of: image)
            #expect(object["blurHash"] as? String == summary.blurHash, "\(path)")
            #expect(object["thumbHash"] as? String == summary.thumbHash, "\(path)")
            let colors = try #require(object["dominantColors"] as? [[String: Any]], "\(path)")
            #expect(colors.compactMap { $0["hex"] as? String } == summary.dominantColors.map(\.hex), "\(path)")
            let shares = colors.compactMap { $0["share"] as? Double }
            #expect(shares.count == colors.count && shares.allSatisfy { $0 > 0 && $0 <= 1 })
            #expect(abs(shares.reduce(0, +) - 1) < 0.01, "\(path)")
        }
        // Landscape_6 is stored 450x600 and shown upright as 600x450: a 4x3 BlurHash.
        #expect(ImagePlaceholder.blurHashComponents(objects[1]["blurHash"] as? String ?? "") == BlurHashComponents(x: 4, y: 3))
    }

    @Test("Given the table output, then the placeholder columns are there; without the flag they are not")
    func table() async throws {
        let path = Corpus.url("sdwebimage/TestImage.jpg").path
        let with = try await CLIRunner.run(["info", "--placeholders", path])
        #expect(with.status == 0)
        #expect(with.stdout.contains("BLURHASH") && with.stdout.contains("THUMBHASH") && with.stdout.contains("COLOURS"))
        let summary = ImagePlaceholder.summary(
            of: try CodersManager.shared.decode(try Corpus.data("sdwebimage/TestImage.jpg"), options: ImagePlaceholder.decodeOptions()))
        #expect(with.stdout.contains(summary.blurHash))
        #expect(with.stdout.contains(summary.dominantColors[0].hex))

        let without = try await CLIRunner.run(["info", "--json", path])
        #expect(!without.stdout.contains("blurHash"))
    }

    @Test("Given a malformed file, when info --placeholders runs, then it reports the error with null placeholders")
    func malformed() async throws {
        let bad = Corpus.url("malformed/generated/html_404_named.jpg").path
        let result = try await CLIRunner.run(["info", "--placeholders", "--json", bad])
        #expect(result.status != 0)
        let object = try #require(try InfoCommandTests.jsonObjects(result.stdout).first)
        #expect(object["blurHash"] is NSNull && object["thumbHash"] is NSNull && object["dominantColors"] is NSNull)
    }
}
