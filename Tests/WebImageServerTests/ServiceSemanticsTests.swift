import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Testing
import WebImage
import WebImageServer
import WebImageTesting

@Suite(.timeLimit(.minutes(2))) struct ServiceSemanticsTests {
    @Test func etagAnswersIfNoneMatchWithoutDecoding() async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        harness.origin.route("/src.png", .ok(try TestImages.png(width: 64, height: 64), contentType: "image/png"))
        let path = harness.plainPath("/src.png", options: "w:32", ext: "png")
        let first = try await harness.get(path)
        let etag = try #require(first.header("ETag"))
        #expect(etag.hasPrefix("\"") && !etag.hasPrefix("W/"))
        #expect(first.header("Cache-Control") == "public, max-age=31536000")
        #expect(first.header("Content-Disposition") == "inline; filename=\"src.png\"")
        #expect(harness.service.decodeCount == 1)
        let again = try await harness.get(path, headers: [("If-None-Match", etag)])
        #expect(again.status == 304 && again.body.isEmpty)
        #expect(again.header("ETag") == etag)
        #expect(harness.service.decodeCount == 1, "a 304 must not decode")
        let other = try await harness.get(harness.plainPath("/src.png", options: "w:16", ext: "png"), headers: [("If-None-Match", etag)])
        #expect(other.status == 200 && other.header("ETag") != etag)
        #expect(harness.service.decodeCount == 2)
    }

    @Test func headHasTheHeadersOfGetAndNoBody() async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        harness.origin.route("/src.png", .ok(try TestImages.png(width: 20, height: 20), contentType: "image/png"))
        let path = harness.plainPath("/src.png", options: "att:1/fn:photo", ext: "webp")
        let get = try await harness.get(path)
        let head = try await harness.get(path, method: .HEAD)
        #expect(head.status == 200 && head.body.isEmpty)
        #expect(head.header("Content-Length") == String(get.body.count))
        #expect(head.header("Content-Type") == "image/webp" && head.header("ETag") == get.header("ETag"))
        #expect(get.header("Content-Disposition") == "attachment; filename=\"photo.webp\"")
    }

    @Test func eachErrorStatusWithAPlainTextBody() async throws {
        // Every case but the slow source gets a timeout a loaded machine never reaches; the slow
        // source is held at a gate that never opens, so it times out whatever the machine's speed.
        let harness = try await ServiceHarness.start {
            $0.limits.maxSourceBytes = 50_000
            $0.downloadTimeout = 60
        }
        defer { Task { await harness.stop() } }
        harness.origin.route("/missing.png", .status(404))
        harness.origin.route("/broken.png", .status(500))
        harness.origin.route("/big.png", .ok(Data(count: 60_000), contentType: "image/png"))
        harness.origin.route("/text", .ok(Data("hello, not an image".utf8), contentType: "text/plain"))
        harness.origin.route("/bomb.png", .ok(PNGFixtures.header(width: 100_000, height: 100_000), contentType: "image/png"))
        harness.origin.route("/corrupt.png", .ok(PNGFixtures.header(width: 16, height: 16) + Data(repeating: 0x55, count: 100), contentType: "image/png"))
        let cases: [(String, String, Int, String)] = [
            ("/missing.png", "w:10", 404, "source not found"),
            ("/missing.png", "w:zz", 400, "bad option w"),
            ("/missing.png", "nope:1", 400, "bad option nope: unknown option"),
            ("/big.png", "", 413, "source too large"),
            ("/bomb.png", "", 413, "source too large"),
            ("/text", "", 415, "source is not a supported image"),
            ("/corrupt.png", "", 422, "cannot process image"),
            ("/broken.png", "", 502, "source failed"),
        ]
        for (originPath, options, status, text) in cases {
            let reply = try await harness.get(harness.plainPath(originPath, options: options, ext: "png"))
            #expect(reply.status == status, "\(originPath) \(options): \(reply.status) \(reply.text)")
            #expect(reply.text.hasPrefix(text), "\(originPath): \(reply.text)")
            #expect(reply.header("Content-Type") == "text/plain; charset=utf-8")
        }
        let slowHarness = try await ServiceHarness.start { $0.downloadTimeout = 1 }
        defer { Task { await slowHarness.stop() } }
        let never = HTTPTestServer.Gate()
        defer { never.open() }
        slowHarness.origin.route("/slow.png", .ok(Data(), contentType: "image/png").with { $0.gate = never })
        let slow = try await slowHarness.get(slowHarness.plainPath("/slow.png", options: "", ext: "png"))
        #expect(slow.status == 504, "/slow.png: \(slow.status) \(slow.text)")
        #expect(slow.text.hasPrefix("timed out"), "/slow.png: \(slow.text)")
        #expect(slow.header("Content-Type") == "text/plain; charset=utf-8")
        #expect(harness.service.decodeCount == 1, "only the corrupt image reaches the decoder; the bomb is refused from its header")
        let json = try await harness.get(harness.plainPath("/missing.png"), headers: [("Accept", "application/json")])
        #expect(json.status == 404 && json.header("Content-Type") == "application/json")
        #expect(json.text == #"{"message":"source not found","status":404}"#)
    }

    @Test func fullQueueGets429WithRetryAfter() async throws {
        let harness = try await ServiceHarness.start { $0.workers = 1; $0.queue = 0; $0.retryAfter = 3 }
        defer { Task { await harness.stop() } }
        let gate = HTTPTestServer.Gate()
        harness.origin.route("/held.png", .ok(try TestImages.png(width: 8, height: 8), contentType: "image/png").with { $0.gate = gate })
        let held = Task { try await harness.get(harness.plainPath("/held.png")) }
        while gate.waitingCount == 0 { await Task.yield() }
        let refused = try await harness.get(harness.plainPath("/held.png", options: "w:4"))
        #expect(refused.status == 429)
        #expect(refused.header("Retry-After") == "3")
        gate.open()
        #expect(try await held.value.status == 200)
        #expect(try await harness.get(harness.plainPath("/held.png", options: "w:4")).status == 200, "the slot is free again")
    }

    @Test func identicalConcurrentMissesFetchAndRenderOnce() async throws {
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-src-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: cache) }
        let harness = try await ServiceHarness.start { $0.cacheDirectory = cache; $0.workers = 2; $0.queue = 100 }
        defer { Task { await harness.stop() } }
        let gate = HTTPTestServer.Gate()
        harness.origin.route("/one.png", .ok(try TestImages.png(width: 300, height: 200), contentType: "image/png").with { $0.gate = gate })
        let path = harness.plainPath("/one.png", options: "rs:fill:50:50", ext: "webp")
        let replies = try await withThrowingTaskGroup(of: ServiceHarness.Reply.self) { group in
            for _ in 0..<64 { group.addTask { try await harness.get(path) } }
            while gate.waitingCount == 0 { await Task.yield() }
            gate.open()
            var all: [ServiceHarness.Reply] = []
            for try await reply in group { all.append(reply) }
            return all
        }
        #expect(replies.count == 64 && replies.allSatisfy { $0.status == 200 })
        #expect(Set(replies.map(\.body)).count == 1)
        #expect(harness.origin.requestCount("/one.png") == 1)
        #expect(harness.service.decodeCount == 1)
    }

    @Test func healthAndPrometheusMetrics() async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        harness.origin.route("/src.png", .ok(try TestImages.png(width: 8, height: 8), contentType: "image/png"))
        let health = try await harness.get("/health")
        #expect(health.status == 200 && health.text == "ok\n")
        _ = try await harness.get(harness.plainPath("/src.png", ext: "png"))
        _ = try await harness.get(harness.plainPath("/src.png", options: "bad:1"))
        let metrics = try await harness.get("/metrics")
        #expect(metrics.status == 200)
        let lines = metrics.text.split(separator: "\n").map(String.init)
        func value(_ prefix: String) -> Double? {
            lines.first { $0.hasPrefix(prefix) }.flatMap { $0.split(separator: " ").last.flatMap { Double($0) } }
        }
        #expect(value("webimage_requests_total{status=\"200\"}") == 1, "\(metrics.text)")
        #expect(value("webimage_requests_total{status=\"400\"}") == 1)
        #expect(value("webimage_stage_duration_seconds_count{stage=\"decode\"}") == 1)
        #expect(value("webimage_stage_duration_seconds_count{stage=\"download\"}") == 1)
        #expect(lines.contains { $0.hasPrefix("webimage_bytes_in_total") })
        #expect(lines.contains { $0.hasPrefix("webimage_bytes_out_total") })
        #expect(lines.contains { $0.hasPrefix("webimage_in_flight") })
        #expect(lines.contains { $0.hasPrefix("webimage_cache_lookups_total") })
        #expect(lines.contains { $0.hasPrefix("# TYPE webimage_stage_duration_seconds histogram") })
    }
}

/// Hand-made PNG headers (signature + IHDR with a correct CRC) for limit tests.
enum PNGFixtures {
    static func header(width: UInt32, height: UInt32) -> Data {
        var ihdr = Data("IHDR".utf8)
        for value in [width, height] { withUnsafeBytes(of: value.bigEndian) { ihdr.append(contentsOf: $0) } }
        ihdr.append(contentsOf: [8, 6, 0, 0, 0])
        var data = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13])
        data.append(ihdr)
        withUnsafeBytes(of: CRC32.checksum(ihdr).bigEndian) { data.append(contentsOf: $0) }
        return data
    }
}

@Suite(.timeLimit(.minutes(2))) struct SourceCacheTests {
    @Test func cachedSourcesAreReusedThenRevalidated() async throws {
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-reval-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: cache) }
        let png = try TestImages.png(width: 16, height: 16)
        // Fresh for an hour: the second request must not reach the origin.
        let fresh = try await ServiceHarness.start { $0.cacheDirectory = cache; $0.sourceRevalidateAfter = 3600 }
        defer { Task { await fresh.stop() } }
        fresh.origin.route("/v.png", handler: HTTPTestServer.conditional(png, entityTag: "\"v1\"", lastModified: nil, contentType: "image/png"))
        #expect(try await fresh.get(fresh.plainPath("/v.png", options: "w:8", ext: "png")).status == 200)
        #expect(try await fresh.get(fresh.plainPath("/v.png", options: "w:4", ext: "png")).status == 200)
        #expect(fresh.origin.requestCount("/v.png") == 1)

        // Always stale: each request revalidates with If-None-Match and the origin's 304 keeps it.
        let stale = try await ServiceHarness.start { $0.cacheDirectory = cache; $0.sourceRevalidateAfter = 0 }
        defer { Task { await stale.stop() } }
        stale.origin.route("/v.png", handler: HTTPTestServer.conditional(png, entityTag: "\"v1\"", lastModified: nil, contentType: "image/png"))
        let path = stale.plainPath("/v.png", options: "w:8", ext: "png")
        #expect(try await stale.get(path).status == 200)  // different origin port: a new cache key, downloaded
        let second = try await stale.get(path)
        #expect(second.status == 200)
        let requests = stale.origin.requests(for: "/v.png")
        #expect(requests.count == 2)
        #expect(requests.last?.header("If-None-Match") == "\"v1\"")
        #expect(stale.service.decodeCount == 1, "the revalidated source gives the same ETag: the result cache answers")
    }
}

