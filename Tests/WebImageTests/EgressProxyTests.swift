import Foundation
import NIOCore
import NIOPosix
import Synchronization
import Testing
@testable import WebImage
import WebImageCore
import WebImageTesting

#if canImport(Glibc)
    import Glibc
#endif

/// Sends `request` to 127.0.0.1:`port` over a plain blocking socket and returns what arrives
/// until the proxy closes the connection (60 s receive timeout as a hang guard).
private func exchange(port: Int, _ request: [UInt8]) throws -> String {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    try #require(descriptor >= 0)
    defer { close(descriptor) }
    var timeout = timeval(tv_sec: 60, tv_usec: 0)
    setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = UInt16(port).bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    try #require(connected == 0)
    _ = request.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    var received: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        if count <= 0 { break }
        received += chunk[0..<count]
    }
    return String(decoding: received, as: UTF8.self)
}

@Suite("Egress proxy against hostile clients (R-1)")
struct EgressProxyTests {
    @Test("Given CONNECT targets, then host and port are parsed, brackets removed, and nonsense refused")
    func targets() {
        #expect(EgressConnectHandler.target("example.com:443")! == ("example.com", 443))
        #expect(EgressConnectHandler.target("[::1]:8080")! == ("::1", 8080))
        #expect(EgressConnectHandler.target("127.0.0.1:80")! == ("127.0.0.1", 80))
        for bad in ["example.com", "example.com:0", "example.com:65536", ":80", "a b:80", "a/b:80", "host:x"] {
            #expect(EgressConnectHandler.target(bad) == nil, "\(bad)")
        }
    }

    @Test("Given a proxy under .publicInternetOnly, then other methods, bad targets, oversized heads and refused addresses are answered and closed, and refusals recorded")
    func hostileRequests() throws {
        var policy = AddressPolicy.publicInternetOnly
        policy.allowedRanges = [IPAddressRange("127.0.0.1/32")!]
        let proxy = try EgressProxy(policy: policy, connectTimeout: .seconds(10), group: MultiThreadedEventLoopGroup.singleton)
        defer { proxy.shutdown() }

        #expect(try exchange(port: proxy.port, Array("GET http://127.0.0.1/ HTTP/1.1\r\nHost: x\r\n\r\n".utf8)).hasPrefix("HTTP/1.1 405"))
        #expect(try exchange(port: proxy.port, Array("CONNECT nonsense HTTP/1.1\r\n\r\n".utf8)).hasPrefix("HTTP/1.1 400"))
        #expect(try exchange(port: proxy.port, [UInt8](repeating: 0x41, count: 9000)).hasPrefix("HTTP/1.1 431"))

        let refused = try exchange(port: proxy.port, Array("CONNECT 127.0.0.2:80 HTTP/1.1\r\nHost: 127.0.0.2\r\n\r\n".utf8))
        #expect(refused.hasPrefix("HTTP/1.1 403"))
        #expect(
            proxy.outcomes.failure(for: "127.0.0.2:80")
                == .refused(host: "127.0.0.2", address: "127.0.0.2", reason: "loopback address"))
        let mapped = try exchange(port: proxy.port, Array("CONNECT [::ffff:169.254.169.254]:80 HTTP/1.1\r\n\r\n".utf8))
        #expect(mapped.hasPrefix("HTTP/1.1 403"))
        guard case .refused(_, _, let reason) = proxy.outcomes.failure(for: "::ffff:169.254.169.254:80") else {
            Issue.record("no refusal recorded for the IPv4-mapped metadata address")
            return
        }
        #expect(reason.hasPrefix("link-local address"))
    }
}

/// A DNS server that rebinds: each lookup of a name gets the next answer of a list (the last
/// one repeated), and the lookups are counted.
private final class RebindingResolver: Sendable {
    private let answers: [SocketAddress]
    private let lookups = Mutex(0)

    init(answers: [SocketAddress]) {
        self.answers = answers
    }

    var lookupCount: Int { lookups.withLock { $0 } }

    func resolve(_ host: String, port: Int) throws -> [SocketAddress] {
        let index = lookups.withLock { count in
            defer { count += 1 }
            return count
        }
        return [answers[min(index, answers.count - 1)]]
    }
}

@Suite("Egress proxy against DNS rebinding (R-1)")
struct EgressProxyRebindingTests {
    @Test("Given a name that resolves to an allowed address first and to 127.0.0.2 next, then the proxy connects only where it checked, and the second lookup is refused with no connection to 127.0.0.2")
    func rebindingNeverReachesTheRefusedAddress() async throws {
        // 127.0.0.1 is let through by an allow rule: it stands in for the public address a
        // rebinding server answers first (a test never connects outside 127.0.0.0/8).
        let allowed = HTTPTestServer()
        // Counted, then the connection is closed: `exchange` reads until the tunnel ends, and a
        // tunnel rightly stays open while a keep-alive origin keeps its connection.
        allowed.route("/r", .close)
        let refused = AcceptCountingListener(host: "127.0.0.2")
        try await allowed.start()
        try await refused.start()
        let resolver = RebindingResolver(answers: [
            try SocketAddress(ipAddress: "127.0.0.1", port: allowed.port),
            try SocketAddress(ipAddress: "127.0.0.2", port: refused.port),
        ])
        var policy = AddressPolicy.publicInternetOnly
        policy.allowedRanges = [IPAddressRange("127.0.0.1/32")!]
        let proxy = try EgressProxy(
            policy: policy, connectTimeout: .seconds(30), group: MultiThreadedEventLoopGroup.singleton,
            resolver: { try resolver.resolve($0, port: $1) })
        let connect = "CONNECT rebind.test:80 HTTP/1.1\r\nHost: rebind.test:80\r\n\r\n"
        // The request through the tunnel follows the CONNECT head at once (the proxy forwards it).
        let request = Array((connect + "GET /r HTTP/1.1\r\nHost: rebind.test\r\n\r\n").utf8)

        // First connection: one lookup, checked, and the connection goes to that address —
        // the name is not looked up again to connect (which would now answer 127.0.0.2).
        let first = try await onOwnThread { try exchange(port: proxy.port, request) }
        #expect(first.hasPrefix("HTTP/1.1 200"), "\(first)")
        #expect(resolver.lookupCount == 1)
        #expect(allowed.requestCount("/r") == 1)

        // Second connection: the name now resolves to 127.0.0.2, which is refused unconnected.
        let second = try await onOwnThread { try exchange(port: proxy.port, request) }
        #expect(second.hasPrefix("HTTP/1.1 403"), "\(second)")
        #expect(resolver.lookupCount == 2)
        #expect(
            proxy.outcomes.failure(for: "rebind.test:80")
                == .refused(host: "rebind.test", address: "127.0.0.2", reason: "loopback address"))
        #expect(refused.acceptedCount == 0)
        #expect(allowed.requestCount("/r") == 1)

        proxy.shutdown()
        await allowed.shutdown()
        await refused.shutdown()
    }
}
