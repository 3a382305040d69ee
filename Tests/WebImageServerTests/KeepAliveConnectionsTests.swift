import NIOCore
import NIOEmbedded
import Testing

@testable import WebImageServer

/// ``KeepAliveConnections`` driven event by event, in the orders the event loops can report
/// them in: which connection is closed for the client cap, and when.
@Suite struct KeepAliveConnectionsTests {
    static func connect(_ channel: EmbeddedChannel) throws {
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 80)).wait()
    }

    @Test("Given the oldest idle connection closing for the cap, when a new client is accepted and idle ones remain at the cap after it ends, then the next idle one is closed")
    func nextIdleGoesWhenTheShedOneEnds() throws {
        let connections = KeepAliveConnections(maxClients: 2)
        let first = EmbeddedChannel(), second = EmbeddedChannel(), third = EmbeddedChannel()
        defer { for channel in [first, second, third] { _ = try? channel.finish() } }
        for channel in [first, second, third] { try Self.connect(channel) }
        let a = connections.opened(), b = connections.opened()
        // Both answered: the first to turn idle is closed for the cap.
        connections.becameIdle(a, channel: first)
        #expect(!first.isActive, "the connection idle the longest is closed at the cap")
        // While it closes, the second turns idle and a client is accepted, answered and idle:
        // only one connection closes for the cap at a time.
        connections.becameIdle(b, channel: second)
        let c = connections.opened()
        connections.becameIdle(c, channel: third)
        #expect(second.isActive && third.isActive)
        // The first has ended; two connections, both idle, are still at the cap.
        connections.closed(a)
        #expect(!second.isActive, "the next connection idle the longest is closed")
        #expect(third.isActive, "the younger idle connection is kept")
        connections.closed(b)
        #expect(third.isActive, "below the cap nothing more is closed")
    }

    @Test("Given connections below the cap, when one that was not shed ends, then no idle connection is closed")
    func belowTheCapNothingCloses() throws {
        let connections = KeepAliveConnections(maxClients: 3)
        let first = EmbeddedChannel(), second = EmbeddedChannel()
        defer { for channel in [first, second] { _ = try? channel.finish() } }
        for channel in [first, second] { try Self.connect(channel) }
        let a = connections.opened(), b = connections.opened()
        connections.becameIdle(a, channel: first)
        connections.becameIdle(b, channel: second)
        let c = connections.opened()
        #expect(!first.isActive, "the third connection reached the cap")
        connections.closed(a)
        connections.closed(c)
        #expect(second.isActive)
    }
}
