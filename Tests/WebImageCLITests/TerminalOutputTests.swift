import Foundation
import Testing
import WebImageTesting

/// What only shows on a terminal or through a pipe: the progress bar, colours, `--from -`.
@Suite("webimage on a terminal and on standard input")
struct TerminalOutputTests {
    static let clearLine = "\r\u{1B}[2K"
    static let cyan = "\u{1B}[36m"

    @Test("Given a URL list on standard input, when prefetched with --from -, then every URL is warmed")
    func prefetchFromStandardInput() async throws {
        try await FetchFixtures.withServer { server, cache, _ in
            server.route("/s1.png", .ok(try FetchFixtures.png(seed: 1), contentType: "image/png"))
            server.route("/s2.png", .ok(try FetchFixtures.png(seed: 2), contentType: "image/png"))
            let list = "# from a pipe\n\(server.url("/s1.png").absoluteString)\n\n\(server.url("/s2.png").absoluteString)\n"
            let result = try await CLIRunner.detached {
                try TerminalRunner.run(["prefetch", "--from", "-", "--json", "--cache-dir", cache.path], input: Data(list.utf8))
            }
            #expect(result.status == 0, "stderr: \(result.stderr)")
            let summary = try LoadSummaryJSON.parse(result.stdout)
            #expect(summary.requested == 2 && summary.downloaded == 2 && summary.finished == 2)
            #expect(server.requestCount("/s1.png") == 1 && server.requestCount("/s2.png") == 1)
            #expect(!result.stderr.contains(Self.clearLine), "no bar when standard error is not a terminal")
        }
    }

    @Test("Given an empty standard input, when prefetched with --from -, then it reports nothing to do")
    func prefetchFromEmptyInput() async throws {
        let cache = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: cache) }
        let result = try await CLIRunner.detached {
            try TerminalRunner.run(["prefetch", "--from", "-", "--json", "--cache-dir", cache.path], input: Data())
        }
        let summary = try LoadSummaryJSON.parse(result.stdout)
        #expect(summary.requested == 0 && summary.downloaded == 0)
    }

    @Test("Given a terminal, when fetching, then a redrawn, coloured progress bar reaches done/total with a rate and an ETA")
    func progressBarOnTerminal() async throws {
        try await FetchFixtures.withServer { server, cache, _ in
            let urls = (0..<3).map { index in
                server.route("/t\(index).png", .ok((try? FetchFixtures.png(seed: UInt8(index))) ?? Data(), contentType: "image/png"))
                return server.url("/t\(index).png").absoluteString
            }
            let result = try await CLIRunner.detached {
                try TerminalRunner.runInTerminal(["fetch"] + urls + ["--cache-dir", cache.path])
            }
            #expect(result.status == 0, "output: \(result.stdout)")
            let screen = result.stdout
            #expect(screen.contains(Self.clearLine + "["), "the bar redraws its line in place")
            #expect(screen.contains("] 3/3"), "the bar reaches done/total")
            #expect(screen.contains("/s  ETA "), "the bar shows a rate and an ETA")
            #expect(screen.contains(Self.cyan), "colour on a terminal")
        }
    }

    @Test("Given a terminal and NO_COLOR, when fetching, then the bar is drawn without colour codes")
    func noColorOnTerminal() async throws {
        try await FetchFixtures.withServer { server, cache, _ in
            server.route("/n.png", .ok(try FetchFixtures.png(seed: 9), contentType: "image/png"))
            let url = server.url("/n.png").absoluteString
            let result = try await CLIRunner.detached {
                try TerminalRunner.runInTerminal(["fetch", url, "--cache-dir", cache.path], environment: ["NO_COLOR": "1"])
            }
            #expect(result.status == 0, "output: \(result.stdout)")
            #expect(result.stdout.contains("] 1/1"))
            #expect(!result.stdout.contains("\u{1B}[3"), "no colour escape (ESC [ 3x m) with NO_COLOR")
            #expect(!result.stdout.contains("\u{1B}[1m"), "no bold with NO_COLOR")
        }
    }
}
