import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Testing
import WebImageCodecs
import WebImageCore
import WebImageTesting

/// `webimage serve` and `webimage sign` as a user runs them: a real process, its stdout line,
/// real HTTP on loopback, SIGTERM.
// The limit is a hang guard: a run that starts a debug-built service, renders, drains and waits
// for its exit can take minutes on a loaded 2-core machine.
@Suite(.timeLimit(.minutes(10))) struct ServeCommandTests {
    /// The expected paths were computed independently (Python's hmac) with imgproxy's
    /// documented example key `secret` and salt `hello`.
    @Test func signPrintsSignedPaths() async throws {
        let common = ["sign", "--key", "736563726574", "--salt", "68656C6C6F", "--options", "rs:fill:300:400:0/g:sm", "--ext", "png"]
        let encoded = try await CLIRunner.run(common + ["http://example.com/images/curiosity.jpg"])
        #expect(encoded.status == 0, "\(encoded.stderr)")
        #expect(encoded.stdout == "/gOB-w2GQGjvL6c9n1NkOvmzm7sPCIGVr2qacyzV2naY/rs:fill:300:400:0/g:sm/aHR0cDovL2V4YW1wbGUuY29tL2ltYWdlcy9jdXJpb3NpdHkuanBn.png\n")
        let plain = try await CLIRunner.run(common + ["--plain", "http://example.com/images/curiosity.jpg"])
        #expect(plain.stdout == "/v4il5rmSYrVOW341NliE_MPcqrwWLyWyeHNDz9YGFBs/rs:fill:300:400:0/g:sm/plain/http://example.com/images/curiosity.jpg@png\n")
        let missingKey = try await CLIRunner.run(["sign", "http://example.com/a.jpg"], environment: ["WEBIMAGE_KEY": "", "WEBIMAGE_SALT": ""])
        #expect(missingKey.status != 0)
    }

    @Test("Given serve --help, then every setting shows its default; a bare boolean flag means true")
    func helpShowsDefaultsAndBareFlagsWork() async throws {
        let help = try await CLIRunner.run(["serve", "--help"])
        let text = (help.stdout + help.stderr).replacingOccurrences(of: "\n", with: " ")
            .split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
        for expected in [
            "--max-clients <max-clients>", "(default: 2048)", "--auto-webp <true|false>", "a bare --auto-webp means true",
            "(default: 1073741824)", "(default: 127.0.0.1:8080)", "(default: none (unsigned)); repeatable",
            "--unsharp-masking-mode <unsharp-masking-mode>", "or always (imgproxy Pro's default is auto) (default: none)",
            "smaller is sharper (default: 24)", "--jpeg-progressive <true|false>", "--jpeg-quant-table <jpeg-quant-table>",
            "8 Peterson-Ahumada-Watson (default: 0)", "quantized PNG, 2-256 (default: 256)", "icon or text (default: default)",
            "(URL option webpo overrides) (default: lossy)",
        ] {
            #expect(text.contains(expected), "\(expected) missing from: \(text)")
        }
        // Every setting's flag, each an option block of the help, shows its default.
        let blocks = (help.stdout + help.stderr).components(separatedBy: "\n  --").dropFirst()
            .map { $0.replacingOccurrences(of: "\n", with: " ").split(separator: " ").joined(separator: " ") }
        let settings = blocks.filter { !$0.hasPrefix("config ") && !$0.hasPrefix("version ") && !$0.hasPrefix("help ") }
        #expect(settings.count >= 80, "\(settings.count) setting flags")
        for block in settings {
            #expect(block.contains("(default: "), "--\(block.prefix(60)): no default")
        }
        for flag in ["auto-jxl", "jxl-effort", "max-chained-pipelines", "max-result-dimension", "autoquality-method", "best-format-candidates", "avif-subsample"] {
            #expect(settings.contains { $0.hasPrefix(flag + " ") }, "--\(flag) listed")
        }
        let serve = try await ServeProcess.start(["--auto-webp", "--auto-jxl", "--sanitize-svg", "--auto-avif", "false", "--workers", "1"])
        #expect(serve.isRunning, "bare boolean flags are accepted")
        await serve.stop()
    }

    @Test func servePrintsOneLineServesAndDrainsOnSIGTERM() async throws {
        guard let binary = CLIRunner.binary else { Issue.record("webimage binary not found"); return }
        let origin = HTTPTestServer()
        try await origin.start()
        defer { Task { await origin.shutdown() } }
        let pixels = PixelBuffer.make(width: 40, height: 20) { out in for i in out.indices { out[i] = 200 } }
        let png = try CodersManager.shared.encode(Image(pixels: pixels), format: .png, options: EncodeOptions())
        let gate = HTTPTestServer.Gate()
        defer { gate.open() }
        origin.route("/src.png", .ok(png, contentType: "image/png"))
        origin.route("/slow.png", .ok(png, contentType: "image/png").with { $0.gate = gate })

        let process = Process()
        process.executableURL = binary
        // The slow download stays held at the origin until the drain is seen, which a starved
        // machine can take well over the default 10 s download timeout to do (each poll of a
        // draining listener may wait its 5 s timeout): give the download the drain's 30 s.
        process.arguments = [
            "serve", "--bind", "127.0.0.1:0", "--allow-network", "loopback", "--workers", "2", "--max-processing-time", "30",
            "--download-timeout", "30", "--max-result-bytes", "10000000",
        ]
        var environment = ProcessInfo.processInfo.environment
        environment["WEBIMAGE_TTL"] = "60"
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { process.terminate() } }

        // Exactly one line on stdout: read it (bytes until the newline).
        let line = try await ServeProcess.firstLine(of: output)
        #expect(line.hasPrefix("listening on http://127.0.0.1:"))
        let base = String(line.dropFirst("listening on ".count))
        #expect(Int(base.split(separator: ":").last ?? "") ?? 0 > 0)

        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        let plain = "\(base)/insecure/w:10/plain/\(origin.url("/src.png").absoluteString)@png"
        let first = try await client.execute(HTTPClientRequest(url: plain), timeout: .seconds(60))
        #expect(first.status.code == 200)
        #expect(first.headers.first(name: "Cache-Control") == "public, max-age=60", "WEBIMAGE_TTL applies")
        _ = try await first.body.collect(upTo: 1 << 20)

        // A slow request is in flight when SIGTERM arrives: it completes; new connections are refused; exit 0.
        let slow = Task { () -> (UInt, Int) in
            let response = try await client.execute(
                HTTPClientRequest(url: "\(base)/insecure/plain/\(origin.url("/slow.png").absoluteString)@png"), timeout: .seconds(60))
            let body = try await response.body.collect(upTo: 1 << 20)
            return (response.status.code, body.readableBytes)
        }
        let held = ContinuousClock.now + .seconds(120)  // hang guard
        while gate.waitingCount == 0, ContinuousClock.now < held { try await Task.sleep(for: .milliseconds(10)) }
        try #require(gate.waitingCount == 1, "the slow request is held at the origin")
        kill(process.processIdentifier, SIGTERM)
        var refused = false
        for _ in 0..<600 where !refused {
            let fresh = HTTPClient(eventLoopGroupProvider: .singleton)
            do {
                _ = try await fresh.execute(HTTPClientRequest(url: "\(base)/health"), timeout: .seconds(5))
                try await Task.sleep(for: .milliseconds(100))  // polling interval, not synchronisation
            } catch {
                refused = true
            }
            try? await fresh.shutdown()
        }
        #expect(refused, "new connections must be refused while draining")
        gate.open()
        let (status, bytes) = try await slow.value
        #expect(status == 200 && bytes > 0, "status \(status)")
        try await client.shutdown()
        try await onOwnThread { process.waitUntilExit() }
        #expect(process.terminationReason == .exit && process.terminationStatus == 0)
    }
}
