import Foundation
import NIOCore
import NIOEmbedded
import NIOPosix
import Testing
@testable import WebImage
import WebImageCore
import WebImageTesting

#if canImport(Glibc)
    import Glibc
#endif

/// What a raw client read from the proxy, and how the reading ended.
private struct RawExchange {
    var text: String
    /// `true` when the proxy closed the connection; `false` when the 60 s hang guard ended it.
    var endedByClose: Bool
}

/// A blocking TCP socket connected to 127.0.0.1:`port`, with a 60 s receive timeout (the hang
/// guard).
private func connectedSocket(port: Int) throws -> Int32 {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    try #require(descriptor >= 0)
    var timeout = timeval(tv_sec: 60, tv_usec: 0)
    setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = UInt16(port).bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    if connected != 0 { close(descriptor) }
    try #require(connected == 0)
    return descriptor
}

/// Sends `request` to the proxy on 127.0.0.1:`port` over a blocking socket and reads until the
/// proxy closes the connection, or until nothing arrived for 60 s (the hang guard). With
/// `thenHalfClosing`: once the proxy's `200` head has arrived, sends those bytes through the
/// tunnel and shuts down the sending side.
private func rawExchange(port: Int, _ request: String, thenHalfClosing tunnelled: String? = nil) throws -> RawExchange {
    let descriptor = try connectedSocket(port: port)
    defer { close(descriptor) }
    let bytes = Array(request.utf8)
    _ = bytes.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    var received: [UInt8] = []
    if let tunnelled {
        let endOfHead = Array("\r\n\r\n".utf8)
        var byte: UInt8 = 0
        while received.suffix(4) != endOfHead[...], recv(descriptor, &byte, 1, 0) == 1 { received.append(byte) }
        let more = Array(tunnelled.utf8)
        _ = more.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        shutdown(descriptor, Int32(SHUT_WR))
    }
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        if count > 0 {
            received += chunk[0..<count]
            continue
        }
        // 0: the proxy closed; -1 with EAGAIN: the receive timeout (the hang guard) ran out;
        // -1 with ECONNRESET: closed too, abortively.
        let closed = count == 0 || errno == ECONNRESET
        return RawExchange(text: String(decoding: received, as: UTF8.self), endedByClose: closed)
    }
}

/// `.publicInternetOnly` with a hole for 127.0.0.1, so that loopback origins are reached only
/// through the egress proxy.
private func loopbackPolicy() -> AddressPolicy {
    var policy = AddressPolicy.publicInternetOnly
    policy.allowedRanges = [IPAddressRange("127.0.0.1/32")!]
    return policy
}

/// A downloader through the egress proxy whose own timeouts are beyond the tests' hang guard,
/// so that only the proxy closing the tunnel can end a download early.
private func proxiedDownloader() -> ImageDownloader {
    var configuration = testDownloaderConfiguration()
    configuration.addressPolicy = loopbackPolicy()
    configuration.downloadTimeout = 120
    configuration.maximumDownloadDuration = 120
    return ImageDownloader(configuration: configuration)
}

/// Waits until `condition` holds, checking every 10 ms; `false` when it still does not after
/// 60 s (the hang guard).
private func eventually(_ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .seconds(60)
    while !condition() {
        if ContinuousClock.now > deadline { return false }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return true
}

/// A listening socket on 127.0.0.1 that never accepts. With `fillingBacklog`, its accept queue
/// is full (backlog 0, one connection queued), so a further connection attempt stays in the
/// kernel's SYN retries: a connect that does not complete, on loopback. Without, connections
/// complete (the kernel queues them) and are never read, answered or closed: an origin that
/// ignores the end of a request.
private final class SilentListener {
    struct SocketSetupFailed: Error {}

    let port: Int
    private let listener: Int32
    private let queued: Int32?

    init(fillingBacklog: Bool) throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw SocketSetupFailed() }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
        }
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard bound == 0, named == 0, listen(descriptor, fillingBacklog ? 0 : 16) == 0 else {
            close(descriptor)
            throw SocketSetupFailed()
        }
        let port = Int(UInt16(bigEndian: address.sin_port))
        do {
            queued = fillingBacklog ? try connectedSocket(port: port) : nil
        } catch {
            close(descriptor)
            throw error
        }
        listener = descriptor
        self.port = port
    }

    deinit {
        if let queued { close(queued) }
        close(listener)
    }
}

/// `load` unless it has not finished after 60 s (the hang guard): then `nil`.
private func withinHangGuard(
    _ load: @escaping @Sendable () async -> Result<ImageLoaderResult, WebImageError>
) async -> Result<ImageLoaderResult, WebImageError>? {
    await withTaskGroup(of: Result<ImageLoaderResult, WebImageError>?.self) { group in
        group.addTask { await load() }
        group.addTask {
            try? await Task.sleep(for: .seconds(60))
            return nil
        }
        let first = await group.next() ?? nil
        group.cancelAll()
        return first
    }
}

/// The tunnel ends on both sides whichever side ends it (SPEC R-1's egress proxy must not
/// leave a client waiting on an origin that is gone).
@Suite("Egress proxy: the tunnel's ends close together (R-1)")
struct EgressProxyTunnelEndTests {
    @Test("Given an origin that accepts and closes at once, when a raw client opens a tunnel to it, then the proxy closes the client too")
    func originClosesAtOnceRaw() async throws {
        let origin = AcceptCountingListener(host: "127.0.0.1")
        try await origin.start()
        let proxy = try EgressProxy(policy: loopbackPolicy(), connectTimeout: .seconds(30), group: MultiThreadedEventLoopGroup.singleton)
        let port = origin.port
        // The CONNECT alone: the client sends nothing through the tunnel, so only the origin's
        // close can end the exchange.
        let result = try await onOwnThread {
            try rawExchange(port: proxy.port, "CONNECT 127.0.0.1:\(port) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n")
        }
        #expect(result.endedByClose, "the proxy kept the client connection open: \(result.text)")
        #expect(origin.acceptedCount == 1)
        #expect(await eventually { proxy.openUpstreamConnections == 0 })
        proxy.shutdown()
        await origin.shutdown()
    }

    @Test("Given an origin that sends part of a response and closes, when a raw client reads through the tunnel, then it gets those bytes and the close")
    func originClosesMidResponseRaw() async throws {
        let origin = RawResponseServer()
        try await origin.start()
        origin.script("/part", .init(bytes: Array("HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\npartial".utf8)))
        let proxy = try EgressProxy(policy: loopbackPolicy(), connectTimeout: .seconds(30), group: MultiThreadedEventLoopGroup.singleton)
        let port = origin.port
        let request = "CONNECT 127.0.0.1:\(port) HTTP/1.1\r\n\r\nGET /part HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
        let result = try await onOwnThread { try rawExchange(port: proxy.port, request) }
        #expect(result.endedByClose, "the proxy kept the client connection open: \(result.text)")
        #expect(result.text.hasPrefix("HTTP/1.1 200 Connection Established"), "\(result.text)")
        #expect(result.text.hasSuffix("\r\n\r\npartial"), "\(result.text)")
        #expect(origin.requestCount("/part") == 1)
        #expect(await eventually { proxy.openUpstreamConnections == 0 })
        proxy.shutdown()
        await origin.shutdown()
    }

    @Test("Given a client that half-closes after its request, when the tunnel is joined, then the origin still answers in full and both ends close")
    func clientHalfClosesAfterRequest() async throws {
        let origin = RawResponseServer()
        try await origin.start()
        origin.script("/whole", .init(bytes: Array("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nwhole".utf8)))
        let proxy = try EgressProxy(policy: loopbackPolicy(), connectTimeout: .seconds(30), group: MultiThreadedEventLoopGroup.singleton)
        let port = origin.port
        let connect = "CONNECT 127.0.0.1:\(port) HTTP/1.1\r\n\r\n"
        let request = "GET /whole HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
        let result = try await onOwnThread { try rawExchange(port: proxy.port, connect, thenHalfClosing: request) }
        #expect(result.endedByClose, "the proxy kept the client connection open: \(result.text)")
        #expect(result.text.hasPrefix("HTTP/1.1 200 Connection Established"), "\(result.text)")
        #expect(result.text.hasSuffix("\r\n\r\nwhole"), "\(result.text)")
        #expect(origin.requestCount("/whole") == 1)
        #expect(await eventually { proxy.openUpstreamConnections == 0 })
        proxy.shutdown()
        await origin.shutdown()
    }

    @Test("Given an origin that ignores the end of the request, when the client half-closes, then the tunnel closes after the linger time, not never")
    func halfClosedTunnelLingersBoundedly() async throws {
        let origin = try SilentListener(fillingBacklog: false)
        let proxy = try EgressProxy(
            policy: loopbackPolicy(), connectTimeout: .seconds(30), group: MultiThreadedEventLoopGroup.singleton,
            halfClosedLinger: .milliseconds(200))
        let port = origin.port
        let result = try await onOwnThread {
            try rawExchange(port: proxy.port, "CONNECT 127.0.0.1:\(port) HTTP/1.1\r\n\r\n", thenHalfClosing: "")
        }
        #expect(result.endedByClose, "the half-closed tunnel stayed open: \(result.text)")
        #expect(result.text.hasPrefix("HTTP/1.1 200 Connection Established"), "\(result.text)")
        #expect(await eventually { proxy.openUpstreamConnections == 0 })
        proxy.shutdown()
        withExtendedLifetime(origin) {}
    }

    @Test("Given an origin whose connect does not complete, when the client goes away, then the proxy drops the connection attempt at once, not at the connect timeout")
    func clientGoneWhileConnecting() async throws {
        let origin = try SilentListener(fillingBacklog: true)
        // A connect timeout beyond the hang guard: only the client's close can end the attempt.
        let proxy = try EgressProxy(policy: loopbackPolicy(), connectTimeout: .seconds(120), group: MultiThreadedEventLoopGroup.singleton)
        let client = try connectedSocket(port: proxy.port)
        let connect = Array("CONNECT 127.0.0.1:\(origin.port) HTTP/1.1\r\n\r\n".utf8)
        _ = connect.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        #expect(await eventually { proxy.openUpstreamConnections == 1 }, "the proxy never started the connection")
        close(client)
        #expect(await eventually { proxy.openUpstreamConnections == 0 }, "the connection attempt outlived its client")
        proxy.shutdown()
        withExtendedLifetime(origin) {}
    }

    @Test("Given the two ends of a splice, when the origin's channel closes before the client's end is joined, then the client's channel closes as it is joined")
    func originClosedBeforeJoin() throws {
        let (clientEnd, originEnd) = SpliceHandler.pair(halfClosedLinger: .seconds(120))
        let origin = EmbeddedChannel()
        try origin.pipeline.syncOperations.addHandler(originEnd)
        try origin.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 80)).wait()
        try origin.close().wait()
        let client = EmbeddedChannel()
        try client.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 81)).wait()
        #expect(client.isActive)
        try client.pipeline.syncOperations.addHandler(clientEnd)
        client.embeddedEventLoop.run()
        #expect(!client.isActive, "the client's channel stayed open after its origin had gone")
    }

    @Test("Given an origin that accepts and closes at once, when ImageDownloader loads through the proxy, then the load fails with a transport error, not a hang")
    func originClosesAtOnceDownloader() async throws {
        let origin = AcceptCountingListener(host: "127.0.0.1")
        try await origin.start()
        let downloader = proxiedDownloader()
        let url = try #require(URL(string: "http://127.0.0.1:\(origin.port)/a.raw"))
        let result = await withinHangGuard { await loadFinal(downloader, url, context: rawContext()) }
        let ended = try #require(result, "the load was still waiting after 60 s")
        guard case .failure(.transport) = ended else {
            Issue.record("expected a transport error, got \(ended)")
            return
        }
        #expect(origin.acceptedCount >= 1)
        try await downloader.shutdown()
        await origin.shutdown()
    }

    @Test("Given an origin that sends part of a body and closes, when ImageDownloader loads through the proxy, then the load fails with a transport error, not a hang")
    func originClosesMidBodyDownloader() async throws {
        let origin = RawResponseServer()
        try await origin.start()
        origin.script("/part.raw", .init(bytes: Array("HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\npartial".utf8)))
        let downloader = proxiedDownloader()
        let result = await withinHangGuard { await loadFinal(downloader, origin.url("/part.raw"), context: rawContext()) }
        let ended = try #require(result, "the load was still waiting after 60 s")
        guard case .failure(.transport) = ended else {
            Issue.record("expected a transport error, got \(ended)")
            return
        }
        #expect(origin.requestCount("/part.raw") == 1)
        try await downloader.shutdown()
        await origin.shutdown()
    }
}
