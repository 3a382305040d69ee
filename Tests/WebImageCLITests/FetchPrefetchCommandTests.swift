import Foundation
import Testing
import WebImageCodecs
import WebImageCore
import WebImageTesting

/// The summary object `fetch --json` and `prefetch --json` end with.
struct LoadSummaryJSON: Decodable {
    var requested: Int
    var downloaded: Int
    var memoryHits: Int
    var diskHits: Int
    var coalesced: Int
    var failed: Int
    var blacklisted: Int
    var bytes: Int
    var seconds: Double
    var finished: Int?
    var skipped: Int?

    /// The summary on the last non-empty line of `stdout`.
    static func parse(_ stdout: String) throws -> LoadSummaryJSON {
        let line = try #require(stdout.split(separator: "\n").last, "no output")
        return try JSONDecoder().decode(LoadSummaryJSON.self, from: Data(line.utf8))
    }
}

/// Fixtures: a small lossless image, a loopback server and temporary directories.
enum FetchFixtures {
    static let size = PixelSize(width: 24, height: 16)

    /// A 24×16 opaque gradient encoded as PNG (seeded so that two images differ).
    static func png(seed: UInt8 = 0) throws -> Data {
        let pixels = PixelBuffer.make(width: size.width, height: size.height) { out in
            for y in 0..<size.height {
                for x in 0..<size.width {
                    let i = (y * size.width + x) * 4
                    out[i] = UInt8(x * 10) &+ seed
                    out[i + 1] = UInt8(y * 15)
                    out[i + 2] = 128 &+ seed
                    out[i + 3] = 255
                }
            }
        }
        return try CodersManager.shared.encode(Image(pixels: pixels, format: .png), format: .png, options: .default)
    }

    /// Runs `body` with a started server and two fresh directories (cache, output), then cleans up.
    static func withServer(_ body: (HTTPTestServer, URL, URL) async throws -> Void) async throws {
        let server = HTTPTestServer()
        try await server.start()
        let cache = try CLIRunner.temporaryDirectory()
        let out = try CLIRunner.temporaryDirectory()
        do {
            try await body(server, cache, out)
        } catch {
            await server.shutdown()
            try? FileManager.default.removeItem(at: cache)
            try? FileManager.default.removeItem(at: out)
            throw error
        }
        await server.shutdown()
        try? FileManager.default.removeItem(at: cache)
        try? FileManager.default.removeItem(at: out)
    }
}

@Suite("webimage fetch")
struct FetchCommandTests {
    @Test("Given two URLs, one listed twice and one missing, when fetched with a cache and an output directory, then the counts, files and exit status are right; a second process answers from disk")
    func fetchThenDiskHits() async throws {
        try await FetchFixtures.withServer { server, cache, out in
            let data = try FetchFixtures.png()
            server.route("/a.png", .ok(data, contentType: "image/png"))
            server.route("/missing.png", .status(404))
            let a = server.url("/a.png").absoluteString
            let missing = server.url("/missing.png").absoluteString

            let first = try await CLIRunner.run(["fetch", a, a, missing, "--json", "--cache-dir", cache.path, "--out", out.path])
            #expect(first.status != 0, "a 404 must make the exit status non-zero")
            #expect(first.stdout.split(separator: "\n").count == 1, "with --json, stdout is the one JSON object")
            let summary = try LoadSummaryJSON.parse(first.stdout)
            #expect(summary.requested == 3)
            #expect(summary.downloaded == 1)
            #expect(summary.coalesced == 1)
            #expect(summary.failed == 1)
            #expect(summary.blacklisted == 1)
            #expect(summary.memoryHits == 0 && summary.diskHits == 0)
            #expect(summary.bytes == data.count)
            #expect(summary.finished == nil && summary.skipped == nil)
            #expect(server.requestCount("/a.png") == 1)
            #expect(first.stderr.contains("invalidDownloadStatusCode"))

            let files = try FileManager.default.contentsOfDirectory(atPath: out.path)
            #expect(files == ["a.png"])
            let written = try Data(contentsOf: out.appendingPathComponent("a.png"))
            #expect(written == data)
            #expect(try CodersManager.shared.decode(written, options: .default).pixelSize == FetchFixtures.size)

            let second = try await CLIRunner.run(["fetch", a, a, missing, "--json", "--cache-dir", cache.path])
            #expect(second.status != 0)
            let again = try LoadSummaryJSON.parse(second.stdout)
            #expect(again.requested == 3)
            #expect(again.diskHits == 1)
            #expect(again.downloaded == 0 && again.bytes == 0)
            #expect(again.coalesced == 1)
            #expect(again.failed == 1)
            #expect(server.requestCount("/a.png") == 1, "the disk hit must not reach the server")
        }
    }

    @Test("Given URLs whose last path components collide or try to escape, when fetched with --format and --thumbnail, then unique safe names inside the directory hold decodable thumbnails")
    func outputNames() async throws {
        try await FetchFixtures.withServer { server, cache, out in
            server.route("/one/pic.png", .ok(try FetchFixtures.png(seed: 1), contentType: "image/png"))
            server.route("/two/pic.png", .ok(try FetchFixtures.png(seed: 2), contentType: "image/png"))
            server.route("/three/..%2Fpic.png", .ok(try FetchFixtures.png(seed: 3), contentType: "image/png"))
            let urls = ["/one/pic.png", "/two/pic.png", "/three/..%2Fpic.png"].map { server.url($0).absoluteString }

            let result = try await CLIRunner.run(
                ["fetch"] + urls + ["--cache-dir", cache.path, "--out", out.path, "--format", "jpeg", "--thumbnail", "8"])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(result.stdout.contains("downloaded"))
            let files = try FileManager.default.contentsOfDirectory(atPath: out.path).sorted()
            #expect(files.count == 3)
            #expect(files.contains("pic.jpg") && files.contains("pic-1.jpg"))
            for file in files {
                #expect(file.hasSuffix(".jpg") && !file.contains("/") && !file.hasPrefix("."))
                let image = try CodersManager.shared.decode(Data(contentsOf: out.appendingPathComponent(file)), options: .default)
                #expect(image.format == .jpeg)
                #expect(image.width <= 8 && image.height <= 8)
            }
            let parent = try FileManager.default.contentsOfDirectory(atPath: out.deletingLastPathComponent().path)
            #expect(!parent.contains("pic.jpg"), "nothing may be written outside the output directory")
        }
    }

    @Test("Given a string that is not a URL, when fetched, then it fails with invalidURL and a non-zero exit status")
    func invalidURL() async throws {
        let cache = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: cache) }
        let result = try await CLIRunner.run(["fetch", "not a url", "--json", "--cache-dir", cache.path])
        #expect(result.status != 0)
        #expect(result.stderr.contains("invalidURL"))
        let summary = try LoadSummaryJSON.parse(result.stdout)
        #expect(summary.requested == 1 && summary.failed == 1 && summary.downloaded == 0)
    }

    @Test("Given --format without --out, when run, then it is a usage error")
    func formatNeedsOut() async throws {
        let result = try await CLIRunner.run(["fetch", "http://127.0.0.1:1/a.png", "--format", "png"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("--out"))
    }

    @Test("Given a closed port on 127.0.0.1, when fetched, then it fails with a transport error, is not blacklisted, and the exit status is non-zero")
    func unreachableHost() async throws {
        // Held for the whole test: a port some server just released could be taken by another
        // test's server meanwhile.
        let port = try #require(RefusingPort())
        defer { withExtendedLifetime(port) {} }
        let url = port.url("/gone.png").absoluteString
        let cache = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: cache) }

        let result = try await CLIRunner.run(["fetch", url, "--json", "--cache-dir", cache.path, "--timeout", "2"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("transport"), "stderr: \(result.stderr)")
        let summary = try LoadSummaryJSON.parse(result.stdout)
        #expect(summary.failed == 1 && summary.blacklisted == 0)
    }

    @Test("Given no --json, when fetched, then a summary table is printed")
    func table() async throws {
        try await FetchFixtures.withServer { server, cache, _ in
            server.route("/t.png", .ok(try FetchFixtures.png(), contentType: "image/png"))
            let result = try await CLIRunner.run(["fetch", server.url("/t.png").absoluteString, "--cache-dir", cache.path],
                                           environment: ["NO_COLOR": "1"])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            for label in ["requested", "downloaded", "memory hits", "disk hits", "coalesced", "failed", "blacklisted", "bytes", "seconds"] {
                #expect(result.stdout.contains(label))
            }
            #expect(!result.stdout.contains("\u{1B}["))
        }
    }
}

@Suite("webimage prefetch")
struct PrefetchCommandTests {
    @Test("Given a URL file with comments, a blank line, a duplicate and a 404, when prefetched, then finished and skipped are counted and a later fetch answers from disk")
    func prefetchWarmsDisk() async throws {
        try await FetchFixtures.withServer { server, cache, out in
            server.route("/p1.png", .ok(try FetchFixtures.png(seed: 1), contentType: "image/png"))
            server.route("/p2.png", .ok(try FetchFixtures.png(seed: 2), contentType: "image/png"))
            server.route("/gone.png", .status(404))
            let p1 = server.url("/p1.png").absoluteString
            let p2 = server.url("/p2.png").absoluteString
            let list = out.appendingPathComponent("urls.txt")
            try Data("# images to warm\n\(p1)\n\n  \(p2)  \n# another comment\n\(p1)\n\(server.url("/gone.png").absoluteString)\n"
                .utf8).write(to: list)

            // One slot: the duplicate starts after the first copy is stored, so it must not be
            // downloaded again. (With several slots it joins the first copy's download, even
            // while that copy is being decoded: FetchCoalescingScenarioTests.)
            let result = try await CLIRunner.run(["prefetch", "--from", list.path, "--json", "--cache-dir", cache.path, "--concurrency", "1"])
            #expect(result.status != 0, "a skipped URL makes the exit status non-zero")
            let summary = try LoadSummaryJSON.parse(result.stdout)
            #expect(summary.requested == 4)
            #expect(summary.finished == 3)
            #expect(summary.skipped == 1)
            #expect(summary.downloaded == 2 && summary.coalesced == 1)
            #expect(summary.failed == 1 && summary.blacklisted == 1)
            #expect(server.requestCount("/p1.png") == 1 && server.requestCount("/p2.png") == 1)

            let fetch = try await CLIRunner.run(["fetch", p1, p2, "--json", "--cache-dir", cache.path])
            #expect(fetch.status == 0, "stderr: \(fetch.stderr)")
            let warm = try LoadSummaryJSON.parse(fetch.stdout)
            #expect(warm.diskHits == 2 && warm.downloaded == 0)
            #expect(server.requestCount("/p1.png") == 1 && server.requestCount("/p2.png") == 1)
        }
    }

    @Test("Given a list file whose only line is not a URL, when prefetched, then the line is skipped with invalidURL")
    func invalidLine() async throws {
        let cache = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: cache) }
        let list = cache.appendingPathComponent("list.txt")
        try Data("not a url\n".utf8).write(to: list)
        // The cache in a directory of its own: a directory holding other files (the list) is
        // not accepted as a cache.
        let result = try await CLIRunner.run(["prefetch", "--from", list.path, "--json", "--cache-dir", cache.appendingPathComponent("cache").path])
        #expect(result.status != 0)
        #expect(result.stderr.contains("invalidURL"))
        let summary = try LoadSummaryJSON.parse(result.stdout)
        #expect(summary.requested == 1 && summary.skipped == 1 && summary.finished == 0)
    }
}
