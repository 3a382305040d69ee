import NIOCore
import Synchronization

/// How many connections from the egress proxy to origins are open: counted when a connection
/// is set up (before it connects) and uncounted when it closes, whatever closed it. A tunnel
/// whose client went away must not keep its origin connection; tests read this to see that.
final class EgressConnectionCount: Sendable {
    private let open = Atomic<Int>(0)

    /// Connections open now.
    var count: Int { open.load(ordering: .relaxed) }

    /// Counts `channel` until its close future completes.
    func opened(_ channel: any Channel) {
        open.add(1, ordering: .relaxed)
        channel.closeFuture.whenComplete { _ in self.open.subtract(1, ordering: .relaxed) }
    }
}
