import Foundation
import Synchronization
import Testing
import WebImage
import WebImageServer
import WebImageTesting
#if canImport(Glibc)
import Glibc
#endif

/// V-7/V-8 over one TCP connection: image responses keep the connection alive (HTTP/1.1
/// keep-alive), a repeated request is answered from the result cache without a fetch or a
/// decode, and the client-gone watch does not cost the connection.
@Suite(.timeLimit(.minutes(2))) struct ServiceKeepAliveTests {
    @Test func severalRequestsShareOneConnection() async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        harness.origin.route("/a.png", .ok(try TestImages.png(width: 40, height: 20), contentType: "image/png"))
        let port = try #require(Int(harness.baseURL.split(separator: ":").last ?? ""))
        let connection = try KeepAliveClient(port: port)
        let path = harness.plainPath("/a.png", options: "w:20", ext: "png")

        // A miss (fetch, decode, render), then the same URL (the hit path), then a 304, then
        // another miss: four answers, one TCP connection.
        let first = try await connection.exchange("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        #expect(first.status == 200, "\(first.head)")
        #expect(first.header("connection")?.lowercased() != "close")
        #expect(try TestImages.decode(first.body).pixelSize == PixelSize(width: 20, height: 10))
        let second = try await connection.exchange("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        #expect(second.status == 200, "\(second.head)")
        #expect(second.body == first.body)
        #expect(second.header("etag") == first.header("etag"))
        let etag = try #require(first.header("etag"))
        let third = try await connection.exchange("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nIf-None-Match: \(etag)\r\n\r\n")
        #expect(third.status == 304)
        #expect(third.body.isEmpty)
        let other = harness.plainPath("/a.png", options: "w:10", ext: "png")
        let fourth = try await connection.exchange("HEAD \(other) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", head: true)
        #expect(fourth.status == 200, "\(fourth.head)")
        #expect(Int(fourth.header("content-length") ?? "") ?? 0 > 0)
        let fifth = try await connection.exchange("GET \(other) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        #expect(try TestImages.decode(fifth.body).pixelSize == PixelSize(width: 10, height: 5))

        #expect(harness.origin.requestCount("/a.png") == 2, "one fetch per distinct URL: the repeat is a hit")
        #expect(harness.service.decodeCount == 2, "the hit and the 304 decode nothing")
    }

    @Test func anIdleConnectionIsClosedAfterTheKeepAliveTimeout() async throws {
        let harness = try await ServiceHarness.start { $0.keepAliveTimeout = 0.5 }
        defer { Task { await harness.stop() } }
        let port = try #require(Int(harness.baseURL.split(separator: ":").last ?? ""))
        let connection = try KeepAliveClient(port: port)
        #expect(try await connection.exchange("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").status == 200)
        // The server closes the idle connection: the next read ends (the socket's 60 s read
        // timeout is the hang guard, and fails this expectation).
        #expect(await connection.readsEndOfStream())
    }

    @Test func http10WithoutKeepAliveEndsTheConnection() async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        harness.origin.route("/a.png", .ok(try TestImages.png(width: 8, height: 8), contentType: "image/png"))
        let port = try #require(Int(harness.baseURL.split(separator: ":").last ?? ""))
        let path = harness.plainPath("/a.png", ext: "png")
        // Twice: a miss, then the hit path; HTTP/1.0 clients without keep-alive wait for the close.
        for _ in 0..<2 {
            let connection = try KeepAliveClient(port: port)
            let answer = try await connection.exchange("GET \(path) HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
            #expect(answer.status == 200)
            #expect(answer.header("connection") == "close")
            #expect(await connection.readsEndOfStream(), "the server ends the connection")
        }
        // HTTP/1.0 with keep-alive asked for keeps it.
        let kept = try KeepAliveClient(port: port)
        for _ in 0..<2 {
            let answer = try await kept.exchange("GET \(path) HTTP/1.0\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n")
            #expect(answer.status == 200)
        }
    }

    @Test func theHitPathStillRefusesAnExpiredURL() async throws {
        let clock = MutableClock(Date(timeIntervalSince1970: 1_000))
        let harness = try await ServiceHarness.start(now: { clock.now })
        defer { Task { await harness.stop() } }
        harness.origin.route("/e.png", .ok(try TestImages.png(width: 8, height: 8), contentType: "image/png"))
        let path = harness.plainPath("/e.png", options: "exp:2000", ext: "png")
        #expect(try await harness.get(path).status == 200)
        #expect(try await harness.get(path).status == 200)
        clock.now = Date(timeIntervalSince1970: 2_001)
        #expect(try await harness.get(path).status == 403, "remembered answers keep the URL's expiry")
    }

    @Test func negotiatedAnswersAreRememberedPerAcceptedFormat() async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        harness.origin.route("/n.png", .ok(try TestImages.png(width: 16, height: 16), contentType: "image/png"))
        let path = harness.plainPath("/n.png", options: "w:8")
        for _ in 0..<2 {
            let webp = try await harness.get(path, headers: [("Accept", "image/webp,*/*")])
            #expect(webp.header("Content-Type") == "image/webp")
            #expect(webp.header("Vary") == "Accept")
            let png = try await harness.get(path, headers: [("Accept", "*/*")])
            #expect(png.header("Content-Type") == "image/png")
            #expect(png.header("Vary") == "Accept")
        }
        #expect(harness.service.decodeCount == 2)
        #expect(harness.origin.requestCount("/n.png") == 2, "one fetch per format; the repeats are hits")
    }
}

/// A clock a test moves by hand.
final class MutableClock: Sendable {
    private let value: Mutex<Date>
    init(_ date: Date) { value = Mutex(date) }
    var now: Date {
        get { value.withLock { $0 } }
        set { value.withLock { $0 = newValue } }
    }
}

/// An HTTP/1.1 client on one loopback TCP connection: sends a request, reads one response (by
/// `Content-Length`), and can send the next on the same connection. Its blocking socket calls
/// run on a thread of their own, never on the concurrency pool the in-process server needs.
/// `@unchecked Sendable`: every socket access and `pending` go through `lock`.
final class KeepAliveClient: @unchecked Sendable {
    struct Answer {
        var head: String
        var status: Int
        var body: Data
        func header(_ name: String) -> String? {
            for line in head.split(separator: "\r\n").dropFirst() {
                guard let colon = line.firstIndex(of: ":") else { continue }
                if line[..<colon].lowercased() == name.lowercased() {
                    return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                }
            }
            return nil
        }
    }

    private var descriptor: Int32
    private var pending = Data()
    private let lock = NSLock()

    /// Runs `body` on a new thread and returns its result.
    private func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try body() }) }.start()
        }
    }

    init(port: Int) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(.EIO) }
        // Hang guard: a read that waits a minute fails the test instead of hanging it.
        var timeout = timeval(tv_sec: 60, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else { Glibc.close(descriptor); throw POSIXError(.ECONNREFUSED) }
    }

    deinit { Glibc.close(descriptor) }

    /// Sends `request` and reads its response; throws if the server closed the connection.
    func exchange(_ request: String, head isHead: Bool = false) async throws -> Answer {
        try await offPool { [self] in try lock.withLock { try blockingExchange(request, head: isHead) } }
    }

    private func blockingExchange(_ request: String, head isHead: Bool) throws -> Answer {
        let bytes = Array(request.utf8)
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { throw POSIXError(.EPIPE) }
            sent += count
        }
        let separator = Data("\r\n\r\n".utf8)
        while pending.range(of: separator) == nil { try fill() }
        let end = pending.range(of: separator)!
        let head = String(decoding: pending[pending.startIndex..<end.lowerBound], as: UTF8.self)
        pending = Data(pending[end.upperBound...])
        var answer = Answer(head: head, status: Int(head.split(separator: " ").dropFirst().first ?? "") ?? 0, body: Data())
        let length = isHead ? 0 : Int(answer.header("content-length") ?? "0") ?? 0
        while pending.count < length { try fill() }
        answer.body = Data(pending.prefix(length))
        pending = Data(pending.dropFirst(length))
        return answer
    }

    /// Waits for the server to close the connection: `true` at end of stream, `false` on data,
    /// error or the read timeout.
    func readsEndOfStream() async -> Bool {
        (try? await offPool { [self] in
            lock.withLock {
                var byte: UInt8 = 0
                return read(descriptor, &byte, 1) == 0
            }
        }) ?? false
    }

    private func fill() throws {
        var buffer = [UInt8](repeating: 0, count: 65536)
        let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        guard count > 0 else { throw POSIXError(.ECONNRESET) }
        pending.append(contentsOf: buffer[0..<count])
    }
}
