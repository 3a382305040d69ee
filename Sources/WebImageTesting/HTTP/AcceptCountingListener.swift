import NIOCore
import NIOPosix
import Synchronization

/// A TCP listener on a loopback address of your choice (e.g. `127.0.0.2`) that accepts
/// connections, counts them and closes them at once: the witness that a client never connected
/// somewhere (a refused redirect target).
public final class AcceptCountingListener: Sendable {
    /// The address listened on.
    public let host: String
    private let state = Mutex<(channel: (any Channel)?, accepted: Int)>((nil, 0))

    /// A listener for `host`, which must be a 127.0.0.0/8 address; call ``start()``.
    public init(host: String) {
        precondition(host.hasPrefix("127."), "tests listen on loopback only")
        self.host = host
    }

    /// The port bound by ``start()``.
    public var port: Int { state.withLock { $0.channel?.localAddress?.port ?? 0 } }
    /// Connections accepted so far.
    public var acceptedCount: Int { state.withLock { $0.accepted } }

    /// Binds `host` on a free port.
    public func start() async throws {
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { [self] channel in
                state.withLock { $0.accepted += 1 }
                return channel.close()
            }
            .bind(host: host, port: 0)
            .get()
        state.withLock { $0.channel = channel }
    }

    /// Stops listening.
    public func shutdown() async {
        let channel = state.withLock { $0.channel }
        try? await channel?.close()
    }
}
