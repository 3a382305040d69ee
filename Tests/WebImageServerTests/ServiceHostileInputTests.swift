import Foundation
import NIOHTTP1
import Testing
import WebImage
import WebImageServer
import WebImageTesting

/// The hostile-input probe's findings F2, F4, F5, F6 and its smaller items, through the
/// service over loopback (F1 in ``ServiceHostileURLTests``; F2, F3 and F7 measured on a
/// `webimage serve` process in the CLI tests).
@Suite(.timeLimit(.minutes(3))) struct ServiceHostileInputTests {
    // MARK: F2 — result pixels checked from the plan

    @Test("Given a 16×16 source and rs:force:16384:16384, then 400 names the result limit and nothing is decoded")
    func resultPixelLimit() async throws {
        let harness = try await ServiceHarness.start { $0.limits.maxResultPixels = 250_000 }
        defer { Task { await harness.stop() } }
        harness.origin.route("/tiny.png", .ok(try TestImages.png(width: 16, height: 16), contentType: "image/png"))
        for options in ["rs:force:16384:16384:1/f:avif", "rs:force:16384:16384:1/f:jpg", "w:8000/h:8000/ex:1/dpr:2/f:png", "rs:force:501:500:1/f:png"] {
            let reply = try await harness.get(harness.plainPath("/tiny.png", options: options))
            #expect(reply.status == 400, "\(options): \(reply.status) \(reply.text)")
            #expect(reply.text.contains("max-result-resolution") || reply.text.contains("pixels per side"), "\(reply.text)")
        }
        #expect(harness.service.decodeCount == 0, "refused from the header, before decoding")
        // At the limit it renders.
        let fine = try await harness.get(harness.plainPath("/tiny.png", options: "rs:force:500:500:1/f:png"))
        #expect(fine.status == 200, "\(fine.text)")
    }

    @Test("Given blur on a large result, then the working memory is counted against max-processing-memory")
    func workingMemoryBudget() async throws {
        let harness = try await ServiceHarness.start { $0.limits.maxProcessingBytes = 8 << 20 }
        defer { Task { await harness.stop() } }
        harness.origin.route("/tiny.png", .ok(try TestImages.png(width: 16, height: 16), contentType: "image/png"))
        // 600×600: 1.4 MB of result plus 7.2 MB of blur temporaries is over 8 MiB; without the
        // blur, 1.4 MB plus 2.9 MB is under.
        let blurred = try await harness.get(harness.plainPath("/tiny.png", options: "rs:force:600:600:1/bl:2/f:png"))
        #expect(blurred.status == 400, "\(blurred.text)")
        #expect(blurred.text.contains("max-processing-memory"), "\(blurred.text)")
        let plain = try await harness.get(harness.plainPath("/tiny.png", options: "rs:force:600:600:1/f:png"))
        #expect(plain.status == 200, "\(plain.text)")
    }

    @Test("Given the result limits as settings, then they are read and bad values refused")
    func resultLimitSettings() throws {
        let (configuration, _, _) = try ImageServiceSettings.configuration(from: [
            "max-result-resolution": ["12.5"], "max-processing-memory": ["268435456"], "cache-max-size": ["1000"],
            "cache-max-age": ["60"], "max-clients": ["10"], "header-timeout": ["3"], "sanitize-svg": ["false"],
        ])
        #expect(configuration.limits.maxResultPixels == 12_500_000)
        #expect(configuration.limits.maxProcessingBytes == 268_435_456)
        #expect(configuration.cacheMaxSize == 1000 && configuration.cacheMaxAge == 60)
        #expect(configuration.maxClients == 10 && configuration.headerTimeout == 3 && !configuration.sanitizeSVG)
        let defaults = ImageServiceConfiguration()
        #expect(defaults.limits.maxResultPixels == 50_000_000 && defaults.cacheMaxSize == 1 << 30 && defaults.maxClients == 2048)
        for bad in [["max-result-resolution": ["0"]], ["max-processing-memory": ["12"]], ["max-clients": ["0"]], ["header-timeout": ["-1"]]] {
            #expect(throws: ImageServiceSettings.Problem.self) { try ImageServiceSettings.configuration(from: bad) }
        }
    }

    // MARK: F4 — the allow-list compares the normalised URL

    @Test(
        "Given --allow-source http://H/ok/, then dot segments and their escapes that leave /ok/ are refused without a request",
        arguments: ["/ok/../private.png", "/ok/%252e%252e/private.png", "/ok/%252E%252e/private.png", "/ok/.%252E/private.png", "/ok/..%5Cprivate.png"])
    func allowListDotSegments(_ path: String) async throws {
        let origin = try await ServiceHarness.start()
        defer { Task { await origin.stop() } }
        origin.origin.route("/ok/a.png", .ok(try TestImages.png(width: 8, height: 8), contentType: "image/png"))
        origin.origin.route("/private.png", .ok(try TestImages.png(width: 8, height: 8), contentType: "image/png"))
        let base = origin.origin.url("/").absoluteString.dropLast()
        let restricted = try await ServiceHarness.start { $0.allowedSourcePrefixes = [base + "/ok/"] }
        defer { Task { await restricted.stop() } }
        let reply = try await restricted.get("/insecure/plain/" + base + path)
        #expect(reply.status == 403, "\(path): \(reply.status) \(reply.text)")
        #expect(origin.origin.requestCount("/private.png") == 0)
        // Allowed forms, the same file written differently, are fetched as the normalised URL.
        let upper = base.replacingOccurrences(of: "http://127.0.0.1", with: "HTTP://127.0.0.1")
        let allowed = try await restricted.get("/insecure/plain/" + upper + "/ok/./x/../a.png")
        #expect(allowed.status == 200, "\(allowed.text)")
        #expect(origin.origin.requestCount("/ok/a.png") == 1)
    }

    // MARK: F5 — SVG answered as SVG is sanitised

    static let hostileSVG = """
        <?xml version="1.0"?>
        <!DOCTYPE svg [<!ENTITY x "boom">]>
        <svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="10" height="10" onload="alert(1)">
        <script>alert(document.cookie)</script>
        <foreignObject><iframe src="https://evil.example/"></iframe></foreignObject>
        <a xlink:href="javascript:alert(2)"><rect width="10" height="10" fill="red" onclick="alert(3)"/></a>
        <image href="https://evil.example/track.png" width="1" height="1"/>
        <use href="#r"/><rect id="r" width="1" height="1" style="fill:url(https://evil.example/x)"/>
        </svg>
        """

    @Test("Given an SVG with scripts, then raw:1 answers it sanitised, with nosniff and a restrictive CSP")
    func svgSanitised() async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        harness.origin.route("/x.svg", .ok(Data(Self.hostileSVG.utf8), contentType: "image/svg+xml"))
        // (`skp` names output formats, and SVG is none: the only way out as SVG is `raw`.)
        #expect(try await harness.get(harness.plainPath("/x.svg", options: "skp:svg")).status == 400)
        for options in ["raw:1", "raw:1/w:10"] {
            let reply = try await harness.get(harness.plainPath("/x.svg", options: options))
            #expect(reply.status == 200, "\(options): \(reply.text)")
            let body = reply.text.lowercased()
            for forbidden in ["<script", "alert", "foreignobject", "iframe", "evil.example", "javascript:", "onload", "onclick", "<!doctype", "entity"] {
                #expect(!body.contains(forbidden), "\(options) kept \(forbidden): \(reply.text)")
            }
            #expect(body.contains("<rect") && body.contains("href=\"#r\""), "harmless markup stays: \(reply.text)")
            #expect(reply.header("Content-Type") == "image/svg+xml")
            #expect(reply.header("X-Content-Type-Options") == "nosniff")
            #expect(reply.header("Content-Security-Policy")?.contains("default-src 'none'") == true)
        }
        // Rendered answers and errors carry nosniff too.
        #expect(try await harness.get(harness.plainPath("/x.svg", options: "f:png")).header("X-Content-Type-Options") == "nosniff")
        #expect(try await harness.get("/insecure/bogus:1/plain/http://x/y.png").header("X-Content-Type-Options") == "nosniff")
    }

    @Test("Given --sanitize-svg false, then raw SVG is answered as the origin sent it")
    func svgSanitisingOff() async throws {
        let harness = try await ServiceHarness.start { $0.sanitizeSVG = false }
        defer { Task { await harness.stop() } }
        harness.origin.route("/x.svg", .ok(Data(Self.hostileSVG.utf8), contentType: "image/svg+xml"))
        let reply = try await harness.get(harness.plainPath("/x.svg", options: "raw:1"))
        #expect(reply.body == Data(Self.hostileSVG.utf8))
    }

    // MARK: F6 — the source cache is bounded

    @Test("Given cache-max-size, then the source cache directory stays within it")
    func sourceCacheBounded() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-bounded-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let harness = try await ServiceHarness.start { $0.cacheDirectory = directory; $0.cacheMaxSize = 60_000 }
        defer { Task { await harness.stop() } }
        var sizes: [Int] = []
        for index in 0..<6 {
            let png = try Self.noisePNG(seed: UInt32(index + 1))
            sizes.append(png.count)
            harness.origin.route("/n\(index).png", .ok(png, contentType: "image/png"))
            #expect(try await harness.get(harness.plainPath("/n\(index).png", options: "w:10")).status == 200)
        }
        #expect(sizes.allSatisfy { $0 > 15_000 }, "each source is large enough to matter: \(sizes)")
        #expect(Self.bytes(under: directory) <= 60_000 + 16_384, "held \(Self.bytes(under: directory)) bytes")
    }

    static func noisePNG(seed: UInt32) throws -> Data {
        var state = seed
        let noise = PixelBuffer.make(width: 80, height: 80) { out in
            for index in 0..<out.count {
                state = state &* 1_103_515_245 &+ 12345
                out[index] = index % 4 == 3 ? 255 : UInt8(truncatingIfNeeded: state >> 16)
            }
        }
        return try CodersManager.shared.encode(Image(pixels: noise, hasAlpha: false), format: .png, options: EncodeOptions())
    }

    static func bytes(under directory: URL) -> Int {
        let files = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: [.fileSizeKey]).map { Array($0) } ?? []
        return files.compactMap { ($0 as? URL).flatMap { try? $0.resourceValues(forKeys: [.fileSizeKey]).fileSize } }.reduce(0, +)
    }

    // MARK: Smaller items

    @Test("Given an empty source, then 422 says it is empty")
    func emptySource() async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        harness.origin.route("/empty.png", .ok(Data(), contentType: "image/png"))
        let reply = try await harness.get(harness.plainPath("/empty.png"))
        #expect(reply.status == 422, "\(reply.text)")
        #expect(reply.text.contains("empty"), "\(reply.text)")
    }

    @Test("Given HEAD /health and POST, DELETE, OPTIONS on image paths, then 200 and 405 with Allow")
    func methods() async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        let head = try await harness.get("/health", method: .HEAD)
        #expect(head.status == 200)
        #expect(head.header("Content-Length") == "3")
        for method in [HTTPMethod.POST, .DELETE, .OPTIONS, .PUT] {
            let reply = try await harness.get(harness.plainPath("/a.png"), method: method)
            #expect(reply.status == 405, "\(method)")
            #expect(reply.header("Allow") == "GET, HEAD")
            #expect(reply.header("X-Content-Type-Options") == "nosniff")
        }
    }

    @Test("Given a client that disconnects while its source downloads, then /metrics counts it as 499")
    func disconnectIs499() async throws {
        let harness = try await ServiceHarness.start { $0.downloadTimeout = 600; $0.processingTimeout = 600 }
        defer { Task { await harness.stop() } }
        let gate = HTTPTestServer.Gate()
        defer { gate.open() }
        harness.origin.route("/held.png", .ok(try TestImages.png(width: 8, height: 8), contentType: "image/png").with { $0.gate = gate })
        let port = try #require(Int(harness.baseURL.split(separator: ":").last ?? ""))
        let client = try RawClient(port: port)
        try client.send("GET \(harness.plainPath("/held.png")) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        #expect(await ServiceDeadlineTests.eventually { gate.waitingCount == 1 })
        client.close()
        #expect(await ServiceDeadlineTests.eventually { harness.service.admittedCount == 0 })
        var metrics = ""
        let limit = ContinuousClock.now + .seconds(60)
        repeat {
            metrics = try await harness.get("/metrics").text
            if metrics.contains("status=\"499\"") { break }
            try await Task.sleep(for: .milliseconds(20))
        } while ContinuousClock.now < limit
        #expect(metrics.contains("status=\"499\""), "\(metrics)")
        #expect(!metrics.contains("status=\"503\""))
    }
}

/// The header deadline: a request whose head does not arrive whole closes its connection; an
/// idle keep-alive connection is not a request and stays.
@Suite(.timeLimit(.minutes(2))) struct ServiceHeaderDeadlineTests {
    @Test("Given a request head cut short, then the connection is closed after header-timeout, not the keep-alive timeout")
    func partialHeadIsClosed() async throws {
        let harness = try await ServiceHarness.start { $0.headerTimeout = 0.5; $0.keepAliveTimeout = 600 }
        defer { Task { await harness.stop() } }
        let port = try #require(Int(harness.baseURL.split(separator: ":").last ?? ""))
        let client = try KeepAliveClient(port: port)
        let partial = try RawClient(port: port)
        defer { partial.close() }
        try partial.send("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
        // The same server still answers others, and then closes the stalled one (the read's
        // own 60 s timeout is the hang guard, far beyond the 0.5 s deadline).
        #expect(try await client.exchange("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").status == 200)
        #expect(await partial.readsEndOfStream(), "the stalled connection is closed")
    }

    @Test("Given an idle keep-alive connection that waits longer than header-timeout, then its next request is answered")
    func idleConnectionStays() async throws {
        let harness = try await ServiceHarness.start { $0.headerTimeout = 0.2; $0.keepAliveTimeout = 600 }
        defer { Task { await harness.stop() } }
        let port = try #require(Int(harness.baseURL.split(separator: ":").last ?? ""))
        let client = try KeepAliveClient(port: port)
        #expect(try await client.exchange("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").status == 200)
        try await Task.sleep(for: .seconds(1))
        #expect(try await client.exchange("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").status == 200)
    }
}

/// The first-byte deadline: connections that send nothing are closed after `first-byte-timeout`,
/// so silent sockets cannot hold every client slot.
@Suite(.timeLimit(.minutes(3))) struct ServiceFirstByteDeadlineTests {
    @Test("Given silent sockets filling max-clients, then /health is still answered and each silent socket is closed")
    func silentSocketsAreClosed() async throws {
        let harness = try await ServiceHarness.start {
            $0.maxClients = 3
            $0.firstByteTimeout = 0.3
            $0.headerTimeout = 600
            $0.keepAliveTimeout = 600
        }
        defer { Task { await harness.stop() } }
        let port = try #require(Int(harness.baseURL.split(separator: ":").last ?? ""))
        let silent = try (0..<3).map { _ in try RawClient(port: port) }
        defer { for socket in silent { socket.close() } }
        // Without the deadline the three hold every slot for the keep-alive timeout (600 s) and
        // this exchange waits in the backlog until its read's own 60 s timeout fails it.
        let client = try KeepAliveClient(port: port)
        #expect(try await client.exchange("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").status == 200)
        for socket in silent { #expect(await socket.readsEndOfStream(), "a silent connection is closed") }
    }

    @Test("Given first-byte-timeout in the settings, then it is read, and a bad value is refused")
    func setting() throws {
        #expect(ImageServiceConfiguration().firstByteTimeout <= 5)
        let configuration = try ImageServiceSettings.configuration(from: ["first-byte-timeout": ["2.5"]]).0
        #expect(configuration.firstByteTimeout == 2.5)
        for bad in ["0", "-1", "x"] {
            #expect(throws: ImageServiceSettings.Problem.self) { try ImageServiceSettings.configuration(from: ["first-byte-timeout": [bad]]) }
        }
        #expect(ImageServiceSettings.all.contains { $0.name == "first-byte-timeout" })
    }
}
