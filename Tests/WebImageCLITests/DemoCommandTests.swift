import Foundation
import Testing
import WebImageCodecs
import WebImageCore
import WebImageTesting

@Suite("webimage demo --decode-only")
struct DecodeTourTests {
    @Test("Given the corpus, when the decode tour runs, then it exits 0 with a table, a summary and a thumbnail per decoded sample", .enabled(if: Corpus.isAvailable))
    func withCorpus() async throws {
        let directory = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let corpus = try #require(Corpus.root).path
        let result = try await CLIRunner.run(["demo", "--decode-only", "--out", directory.path], environment: ["WEBIMAGE_CORPUS": corpus])
        #expect(result.status == 0, "stdout: \(result.stdout)\nstderr: \(result.stderr)")
        #expect(result.stdout.contains("test corpus"))
        #expect(result.stdout.contains("all outcomes as expected"))
        #expect(result.stdout.contains("failed cleanly"))
        let thumbnails = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        let decodedCount = Self.count(of: "decoded", in: result.stdout)
        if CodersManager.shared.canEncode(.png) {
            #expect(thumbnails.count == decodedCount)
        }
    }

    @Test("Given no corpus, when the decode tour runs, then it generates its samples and exits 0")
    func withoutCorpus() async throws {
        let directory = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await CLIRunner.run(
            ["demo", "--decode-only", "--out", directory.path], environment: ["WEBIMAGE_CORPUS": "/nonexistent/corpus"])
        #expect(result.status == 0, "stdout: \(result.stdout)\nstderr: \(result.stderr)")
        #expect(result.stdout.contains("generated in memory"))
        #expect(result.stdout.contains("BMP, generated"))
        #expect(result.stdout.contains("all outcomes as expected"))
        #expect(!result.stdout.contains("\u{1B}["))
    }

    /// The number reported before `label` in the summary line ("… 9 decoded, …").
    static func count(of label: String, in output: String) -> Int {
        guard let summary = output.split(separator: "\n").last(where: { $0.contains("samples:") }) else { return -1 }
        let words = summary.split(separator: " ")
        for (index, word) in words.enumerated() where index > 0 && word.hasPrefix(label) {
            return Int(words[index - 1]) ?? -1
        }
        return -1
    }
}
