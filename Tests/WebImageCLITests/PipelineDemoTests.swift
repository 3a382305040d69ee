import Foundation
import Testing
import WebImageCodecs
import WebImageCore
import WebImageTesting

@Suite("webimage demo (pipeline)")
struct PipelineDemoTests {
    /// The counts of one row of the pass table: requested, downloaded, memory hits, disk hits,
    /// coalesced, failed, blacklisted, server requests (seconds dropped).
    static func row(_ pass: String, in output: String) throws -> [Int] {
        let line = try #require(output.split(separator: "\n").first { $0.hasPrefix(pass + " ") }, "no row for \(pass)")
        let fields = line.dropFirst(pass.count).split(separator: " ").map(String.init)
        try #require(fields.count == 9, "row: \(line)")
        return fields.prefix(8).compactMap { Int($0) }
    }

    /// Checks what `demo --count 24` must print and write; the gallery has 2 URLs requested 5×,
    /// 11 more good URLs and 3 broken ones: 24 requests, 13 + 3 distinct URLs.
    static func verify(_ result: CLIRunner.Result, directory: URL) throws {
        #expect(result.status == 0, "stdout: \(result.stdout)\nstderr: \(result.stderr)")
        let out = result.stdout
        #expect(out.contains("demo passed: every expected outcome happened (8 checks)"))
        #expect(!out.contains("✗"))
        #expect(!out.contains("\u{1B}["), "no colour when stdout is not a terminal")
        for phrase in ["coalescing:", "memory cache:", "failed-URL list:", "disk cache:", "contact sheet:"] {
            #expect(out.contains("✓ " + phrase), "missing check \(phrase)")
        }
        // requested, downloaded, memory, disk, coalesced, failed, blacklisted, server requests
        #expect(try row("pass 1", in: out) == [24, 13, 0, 0, 8, 3, 3, 16])
        #expect(try row("pass 2", in: out) == [24, 0, 13, 0, 8, 3, 3, 0])
        #expect(try row("pass 3", in: out) == [21, 0, 0, 13, 8, 0, 0, 0])
        #expect(result.stderr.contains("pass 3: a new process"))

        // 16 cells of 96 px with 6 px gaps: 4 × 4 → 414 × 414, read by the independent reader.
        let sheet = try ReferencePNG.read(directory.appendingPathComponent("contact-sheet.png"))
        #expect(sheet.width == 414 && sheet.height == 414)
        #expect(sheet.pixel(x: 0, y: 0) == RGBA(r: 38, g: 40, b: 46), "the sheet's background")
        #expect(sheet.pixel(x: 6 + 3 * 102 + 2, y: 6 + 3 * 102 + 2) == RGBA(r: 110, g: 24, b: 28), "the last cell is a failed URL")
        var colours = Set<RGBA>()
        for y in 6..<102 { for x in 6..<102 { colours.insert(sheet.pixel(x: x, y: y)) } }
        #expect(colours.count > 2, "the first cell holds a picture")
        let cache = try FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent("cache").path)
        #expect(!cache.isEmpty, "the demo's cache lives in the output directory")
    }

    @Test("Given no corpus and no --out, when demo --count 24 runs, then it serves generated images, prints the temporary directory it used, and every pass behaves as expected")
    func generatedIntoTemporaryDirectory() async throws {
        let result = try await CLIRunner.run(["demo", "--count", "24"], environment: ["WEBIMAGE_CORPUS": "/nonexistent/corpus"])
        let line = try #require(result.stdout.split(separator: "\n").first { $0.hasPrefix("output:") }, "\(result.stdout)")
        let directory = URL(fileURLWithPath: line.dropFirst("output:".count).trimmingCharacters(in: .whitespaces), isDirectory: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(directory.path.hasPrefix(FileManager.default.temporaryDirectory.standardizedFileURL.path))
        #expect(result.stdout.contains("gallery:  generated with the registered encoders"))
        try Self.verify(result, directory: directory)
    }

    @Test("Given the corpus, when demo --count 24 runs twice with the same --out, then every pass behaves as expected each time (the second run starts from a cold cache), it exits 0 and the contact sheet decodes", .enabled(if: Corpus.isAvailable))
    func withCorpusTwice() async throws {
        let directory = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let corpus = try #require(Corpus.root).path
        for _ in 0..<2 {
            let result = try await CLIRunner.run(
                ["demo", "--count", "24", "--out", directory.path], environment: ["WEBIMAGE_CORPUS": corpus])
            #expect(result.stdout.contains("gallery:  test corpus"))
            try Self.verify(result, directory: directory)
        }
    }

    @Test("Given a --count outside 16…2000, when the demo runs, then it is a usage error", arguments: ["5", "2001", "x"])
    func badCount(count: String) async throws {
        let result = try await CLIRunner.run(["demo", "--count", count])
        #expect(result.status != 0)
        #expect(result.stderr.contains("--count"))
    }
}
