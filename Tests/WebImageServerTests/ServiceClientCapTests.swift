import Foundation
import Testing
import WebImage
import WebImageTesting

@testable import WebImageServer

/// The client cap (`max-clients`, V-7): when the connections held reach it, the one idle the
/// longest is closed, so a new client is accepted and served instead of waiting in the listen
/// backlog for a keep-alive timeout. Real sockets on 127.0.0.1; the other timeouts are far
/// away, and the only waits are for events (a gate, a closed socket). A client left waiting
/// would fail on its socket's 60 s read timeout.
@Suite(.timeLimit(.minutes(3))) struct ServiceClientCapTests {
    static func start(maxClients: Int) async throws -> (ServiceHarness, Int) {
        let harness = try await ServiceHarness.start {
            $0.maxClients = maxClients
            $0.keepAliveTimeout = 600
            $0.headerTimeout = 600
            $0.firstByteTimeout = 600
        }
        return (harness, try #require(Int(harness.baseURL.split(separator: ":").last ?? "")))
    }

    static let health = "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"

    @Test("Given idle keep-alive connections at the cap, when new clients connect, then each is served and the connection idle the longest is closed")
    func oldestIdleIsClosed() async throws {
        let (harness, port) = try await Self.start(maxClients: 3)
        defer { Task { await harness.stop() } }
        let oldest = try KeepAliveClient(port: port)
        #expect(try await oldest.exchange(Self.health).status == 200)
        let older = try KeepAliveClient(port: port)
        #expect(try await older.exchange(Self.health).status == 200)
        // The third connection reaches the cap: the connection idle the longest goes.
        let third = try KeepAliveClient(port: port)
        #expect(try await third.exchange(Self.health).status == 200)
        #expect(await oldest.readsEndOfStream(), "the oldest idle connection is closed")
        // A fourth, past the cap without it, is served: the next idle the longest goes.
        let fourth = try KeepAliveClient(port: port)
        #expect(try await fourth.exchange(Self.health).status == 200)
        #expect(await older.readsEndOfStream())
        #expect(try await third.exchange(Self.health).status == 200, "the younger idle connection is kept")
        #expect(harness.service.metrics.exposition().contains("webimage_idle_connections_closed_total 2"))
    }

    @Test("Given busy connections at the cap, when a client waits and the busy ones finish, then the idle ones are closed for it and it is served")
    func busyConnectionsThatTurnIdle() async throws {
        let (harness, port) = try await Self.start(maxClients: 2)
        defer { Task { await harness.stop() } }
        let gate = HTTPTestServer.Gate(), waitingGate = HTTPTestServer.Gate()
        defer { gate.open(); waitingGate.open() }
        for name in ["/a.png", "/b.png"] {
            harness.origin.route(name, HTTPTestServer.Response.ok(try TestImages.png(width: 8, height: 8), contentType: "image/png").with { $0.gate = gate })
        }
        harness.origin.route("/c.png", HTTPTestServer.Response.ok(try TestImages.png(width: 8, height: 8), contentType: "image/png").with { $0.gate = waitingGate })
        let first = try KeepAliveClient(port: port), second = try KeepAliveClient(port: port)
        async let a = first.exchange("GET \(harness.plainPath("/a.png", ext: "png")) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        async let b = second.exchange("GET \(harness.plainPath("/b.png", ext: "png")) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        // Both connections are answering (their sources are held at the gate): nothing is idle.
        while gate.waitingCount < 2 { try await Task.sleep(for: .milliseconds(5)) }
        // The waiting client's own request is held too once it is accepted, so that it cannot
        // turn idle (and be the one closed) before both busy connections have: which of them
        // finishes first is then no race.
        let waiting = try KeepAliveClient(port: port)
        async let c = waiting.exchange("GET \(harness.plainPath("/c.png", ext: "png")) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        gate.open()
        #expect(try await a.status == 200)
        #expect(try await b.status == 200)
        #expect(await first.readsEndOfStream())
        #expect(await second.readsEndOfStream())
        waitingGate.open()
        #expect(try await c.status == 200, "the waiting client is served")
    }
}
