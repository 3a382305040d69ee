import Foundation
import Testing
import WebImage
import WebImageServer
import WebImageTesting
#if canImport(Glibc)
import Glibc
#endif

/// V-5 (processing deadline, maximum result size) and V-8 (a client that goes away frees its
/// place), over HTTP on loopback.
@Suite struct ServiceDeadlineTests {
    /// Waits (bounded by a generous hang guard) until `condition` holds; `false` on timeout.
    static func eventually(_ condition: () -> Bool) async -> Bool {
        let limit = ContinuousClock.now + .seconds(60)
        while !condition() {
            if ContinuousClock.now > limit { return false }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return true
    }

    @Test func aClientThatDisconnectsFreesItsSlot() async throws {
        let harness = try await ServiceHarness.start { $0.workers = 1; $0.queue = 0; $0.downloadTimeout = 600; $0.processingTimeout = 600 }
        defer { Task { await harness.stop() } }
        let gate = HTTPTestServer.Gate()
        defer { gate.open() }
        harness.origin.route("/held.png", .ok(try TestImages.png(width: 8, height: 8), contentType: "image/png").with { $0.gate = gate })
        harness.origin.route("/free.png", .ok(try TestImages.png(width: 8, height: 8), contentType: "image/png"))
        let port = try #require(Int(harness.baseURL.split(separator: ":").last ?? ""))

        let client = try RawClient(port: port)
        try client.send("GET \(harness.plainPath("/held.png")) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        #expect(await Self.eventually { gate.waitingCount == 1 }, "the origin sees the download")
        #expect(harness.service.admittedCount == 1)
        client.close()

        #expect(await Self.eventually { harness.service.admittedCount == 0 }, "the abandoned request gives its place back")
        let next = try await harness.get(harness.plainPath("/free.png"))
        #expect(next.status == 200, "the single worker is free again: \(next.status) \(next.text)")
    }

    @Test func processingDeadlineAnswers504AndFreesTheSlot() async throws {
        // The download's own deadline is far away: only the processing deadline can end it.
        let harness = try await ServiceHarness.start { $0.workers = 1; $0.queue = 0; $0.downloadTimeout = 600; $0.processingTimeout = 1 }
        defer { Task { await harness.stop() } }
        let never = HTTPTestServer.Gate()
        defer { never.open() }
        harness.origin.route("/stuck.png", .ok(try TestImages.png(width: 8, height: 8), contentType: "image/png").with { $0.gate = never })
        harness.origin.route("/free.png", .ok(try TestImages.png(width: 8, height: 8), contentType: "image/png"))
        let reply = try await harness.get(harness.plainPath("/stuck.png"))
        #expect(reply.status == 504)
        #expect(reply.text.hasPrefix("timed out"))
        #expect(reply.header("Connection") != "close", "the client-gone watch keeps the connection alive")
        #expect(await Self.eventually { harness.service.admittedCount == 0 })
        // The slot is free: with one worker and no queue, a request that found it taken would be
        // refused with 429. The next one runs under the same 1 s processing deadline, so on a
        // starved machine (make test-under-load) its own render may time out too: 200 or 504
        // both show it was admitted.
        let next = try await harness.get(harness.plainPath("/free.png"))
        #expect(next.status == 200 || next.status == 504, "admitted, not refused: \(next.status) \(next.text)")
    }

    @Test func resultOverMaxResultBytesIs422() async throws {
        let harness = try await ServiceHarness.start { $0.limits.maxResultBytes = 1_000 }
        defer { Task { await harness.stop() } }
        // Noise does not compress: a 100×100 PNG of it is tens of kilobytes.
        var seed: UInt32 = 12345
        let noise = PixelBuffer.make(width: 100, height: 100) { out in
            for index in 0..<out.count {
                seed = seed &* 1_103_515_245 &+ 12345
                out[index] = index % 4 == 3 ? 255 : UInt8(truncatingIfNeeded: seed >> 16)
            }
        }
        let png = try CodersManager.shared.encode(Image(pixels: noise, hasAlpha: false), format: .png, options: EncodeOptions())
        harness.origin.route("/photo.png", .ok(png, contentType: "image/png"))
        let big = try await harness.get(harness.plainPath("/photo.png", ext: "png"))
        #expect(big.status == 422, "\(big.status) \(big.text)")
        #expect(big.text.hasPrefix("cannot process image: result is"), "\(big.text)")
        let small = try await harness.get(harness.plainPath("/photo.png", options: "rs:fit:4:4", ext: "png"))
        #expect(small.status == 200, "\(small.status) \(small.text)")
        #expect(small.body.count <= 1_000)
    }

    @Test func settingsForDeadlineAndResultSize() throws {
        let (configuration, _, _) = try ImageServiceSettings.configuration(from: ["max-processing-time": ["2.5"], "max-result-bytes": ["4096"]])
        #expect(configuration.processingTimeout == 2.5)
        #expect(configuration.limits.maxResultBytes == 4096)
        #expect(throws: ImageServiceSettings.Problem.self) { try ImageServiceSettings.configuration(from: ["max-processing-time": ["0"]]) }
        #expect(throws: ImageServiceSettings.Problem.self) { try ImageServiceSettings.configuration(from: ["max-result-bytes": ["-1"]]) }
        #expect(ImageServiceSettings.all.contains { $0.name == "max-processing-time" } && ImageServiceSettings.all.contains { $0.name == "max-result-bytes" })
    }
}

/// A plain TCP client on loopback that sends bytes and closes, without reading the answer (a
/// client that goes away).
final class RawClient {
    private var descriptor: Int32

    init(port: Int) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(.EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else { Glibc.close(descriptor); throw POSIXError(.ECONNREFUSED) }
    }

    func send(_ text: String) throws {
        let bytes = Array(text.utf8)
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { throw POSIXError(.EIO) }
            sent += count
        }
    }

    func close() {
        if descriptor >= 0 { Glibc.close(descriptor); descriptor = -1 }
    }

    /// Waits (on a thread of its own, at most 60 s) for the server to close the connection:
    /// `true` at end of stream, `false` on data, error or the timeout.
    func readsEndOfStream() async -> Bool {
        let descriptor = descriptor
        return await withCheckedContinuation { continuation in
            Thread {
                var timeout = timeval(tv_sec: 60, tv_usec: 0)
                setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
                var byte: UInt8 = 0
                continuation.resume(returning: read(descriptor, &byte, 1) == 0)
            }.start()
        }
    }

    deinit { close() }
}
