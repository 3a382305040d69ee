import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Testing
import WebImageCodecs
import WebImageCore
import WebImageTesting

#if canImport(Glibc)
    import Glibc
#endif

/// The hostile-input probe's process-level findings, on a real `webimage serve`: one URL must
/// not end it (F1), a tiny source must not make it allocate gigabytes (F2), a request past its
/// deadline must stop using the CPU (F3), and connections past the file descriptor limit must
/// not make the accept loop spin (F7).
@Suite(.serialized, .timeLimit(.minutes(4))) struct ServeHostileInputTests {
    static func tinyPNG() throws -> Data {
        let pixels = PixelBuffer.make(width: 16, height: 16) { out in for i in out.indices { out[i] = UInt8(truncatingIfNeeded: i &* 7) } }
        return try CodersManager.shared.encode(Image(pixels: pixels, hasAlpha: false), format: .png, options: EncodeOptions())
    }

    static func get(_ client: HTTPClient, _ url: String) async throws -> (status: UInt, body: String) {
        let response = try await client.execute(HTTPClientRequest(url: url), timeout: .seconds(120))
        let body = try await response.body.collect(upTo: 64 << 20)
        return (response.status.code, String(buffer: body))
    }

    @Test("Given a source and a redirect with a port above 65535, then the service answers and lives")
    func portAboveRangeKeepsTheProcess() async throws {
        let origin = HTTPTestServer()
        try await origin.start()
        defer { Task { await origin.shutdown() } }
        origin.route("/hop", .redirect(to: "http://127.0.0.1:99999/x.jpg"))
        let serve = try await ServeProcess.start([])
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        do {
            let direct = try await Self.get(client, "\(serve.base)/insecure/plain/http://127.0.0.1:65536/x.jpg")
            #expect(direct.status == 400, "\(direct.body)")
            let redirected = try await Self.get(client, "\(serve.base)/insecure/plain/\(origin.url("/hop").absoluteString)")
            #expect(redirected.status == 502, "\(redirected.body)")
            #expect(try await Self.get(client, "\(serve.base)/health").status == 200)
            #expect(serve.isRunning)
        } catch {
            Issue.record("\(error)")
        }
        try await client.shutdown()
        await serve.stop()
    }

    @Test("Given rs:force:16384:16384 on a 16×16 PNG, two at once, then both are refused and the peak stays small")
    func hugeResultFromATinySource() async throws {
        let origin = HTTPTestServer()
        try await origin.start()
        defer { Task { await origin.shutdown() } }
        origin.route("/tiny.png", .ok(try Self.tinyPNG(), contentType: "image/png"))
        let serve = try await ServeProcess.start(["--workers", "2"])
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        let source = origin.url("/tiny.png").absoluteString
        async let first = Self.get(client, "\(serve.base)/insecure/rs:force:16384:16384:1/f:avif/plain/\(source)")
        async let second = Self.get(client, "\(serve.base)/insecure/rs:force:16384:16384:1/f:png/plain/\(source)")
        let replies = try await [first, second]
        for reply in replies { #expect(reply.status == 400, "\(reply.body)") }
        // Idle, a debug build holds ~60 MB; the unchecked renders peaked at 1.9–3.5 GB each.
        #expect(serve.peakResidentBytes < 400 << 20, "peak \(serve.peakResidentBytes >> 20) MB")
        try await client.shutdown()
        await serve.stop()
    }

    @Test("Given a blur that outlives max-processing-time, then 504 comes and the work stops: no CPU used after it")
    func deadlineStopsTheWork() async throws {
        let origin = HTTPTestServer()
        try await origin.start()
        defer { Task { await origin.shutdown() } }
        origin.route("/tiny.png", .ok(try Self.tinyPNG(), contentType: "image/png"))
        let serve = try await ServeProcess.start([
            "--workers", "1", "--max-processing-time", "1", "--max-processing-memory", "4294967296",
        ])
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        // A 7000×7000 blur with σ 50 (a 301-tap kernel) takes minutes on any machine.
        let url = "\(serve.base)/insecure/rs:force:7000:7000:1/bl:50/f:png/plain/\(origin.url("/tiny.png").absoluteString)"
        let reply = try await Self.get(client, url)
        #expect(reply.status == 504, "\(reply.body)")
        // The place is given back once the work has stopped: the next request is admitted
        // (queue 64 by default) and, with the single worker free, answered.
        let health = try await Self.get(client, "\(serve.base)/health")
        #expect(health.status == 200)
        // Give the pool thread time to notice (it checks every row), then measure a window:
        // a blur still running would use the whole window on one core.
        try await Task.sleep(for: .milliseconds(500))
        let before = serve.cpuSeconds
        try await Task.sleep(for: .seconds(2))
        let used = serve.cpuSeconds - before
        #expect(used < 0.5, "the service used \(used) CPU-s in the 2 s after the deadline")
        #expect(serve.peakResidentBytes < 2 << 30, "peak \(serve.peakResidentBytes >> 20) MB")
        try await client.shutdown()
        await serve.stop()
    }

    @Test("Given more idle connections than the file descriptor limit allows, then the service does not spin and serves once they close")
    func connectionsPastTheDescriptorLimit() async throws {
        let serve = try await ServeProcess.start(["--keep-alive-timeout", "600"], openFileLimit: 256)
        var sockets: [Int32] = []
        defer { for fd in sockets { close(fd) } }
        for _ in 0..<300 {
            guard let fd = Self.connect(port: serve.port) else { break }
            sockets.append(fd)
        }
        #expect(sockets.count == 300, "the listen backlog takes the connections the service does not accept yet")
        try await Task.sleep(for: .milliseconds(500))
        let before = serve.cpuSeconds
        try await Task.sleep(for: .seconds(2))
        let used = serve.cpuSeconds - before
        #expect(used < 0.5, "the service used \(used) CPU-s holding idle connections")
        #expect(serve.openFiles < 256, "\(serve.openFiles) descriptors open")
        for fd in sockets { close(fd) }
        sockets = []
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        let health = try await Self.get(client, "\(serve.base)/health")
        #expect(health.status == 200)
        try await client.shutdown()
        await serve.stop()
    }

    /// A blocking TCP connection to 127.0.0.1:`port`; `nil` when it fails.
    static func connect(port: Int) -> Int32? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            close(fd)
            return nil
        }
        return fd
    }
}
