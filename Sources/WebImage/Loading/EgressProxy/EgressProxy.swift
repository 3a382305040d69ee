import Foundation
import NIOCore
import NIOPosix
import Synchronization

// Named so that the socket types below resolve to the C library's module whichever module
// (CNIOLinux, through NIO) the compiler happened to load them from first.
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The downloader's in-process egress proxy (SPEC R-1; the design of Stripe's Smokescreen): an
/// HTTP `CONNECT` proxy on a loopback port that AsyncHTTPClient is configured to use, so every
/// connection — `http` and `https`, the first request and each redirect — is opened by
/// ``EgressConnectHandler``, which resolves the host, checks every address against the
/// ``AddressPolicy`` and connects only to checked addresses. TLS runs end to end through the
/// opaque tunnel, so certificates are still verified against the host name.
///
/// Only a downloader whose policy refuses something starts one.
final class EgressProxy: Sendable {
    /// The loopback port AsyncHTTPClient connects to.
    let port: Int
    /// Why tunnels were not opened, for the downloader's errors.
    let outcomes: EgressOutcomes
    /// The proxy's connections to origins (set up, or in tunnels) that are open now.
    var openUpstreamConnections: Int { upstreams.count }
    private let upstreams = EgressConnectionCount()
    private let listener = Mutex<Listener>(.starting)

    private enum Listener {
        case starting
        case listening(any Channel)
        case closed
    }

    /// Binds `127.0.0.1` on a free port at once (so the port is known before the HTTP client is
    /// configured) and starts accepting on `group`.
    /// - Parameters:
    ///   - resolver: how host names are resolved, once per `CONNECT` (the system resolver;
    ///     tests inject answers that change between lookups, as a rebinding DNS server's do).
    ///   - halfClosedLinger: how long a tunnel stays open after one side stopped sending
    ///     while the other has not (default: `connectTimeout`, at least 10 s).
    init(
        policy: AddressPolicy, connectTimeout: TimeAmount, group: any EventLoopGroup,
        resolver: @escaping @Sendable (String, Int) throws -> [SocketAddress] = { try HostResolver.resolve($0, port: $1) },
        halfClosedLinger: TimeAmount? = nil
    ) throws {
        let outcomes = EgressOutcomes()
        self.outcomes = outcomes
        let (descriptor, port) = try Self.bindLoopback()
        self.port = port
        let settings = EgressSettings(
            policy: policy, outcomes: outcomes, connectTimeout: connectTimeout, headTimeout: max(connectTimeout, .seconds(10)),
            halfClosedLinger: halfClosedLinger ?? max(connectTimeout, .seconds(10)), upstreams: upstreams, resolve: resolver)
        ServerBootstrap(group: group)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelOption(.allowRemoteHalfClosure, value: true)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(EgressConnectHandler(settings: settings))
                }
            }
            .withBoundSocket(descriptor)
            .whenComplete { [weak self] result in
                guard case .success(let channel) = result else { return }
                guard let self else {
                    channel.close(promise: nil)  // released before the listener was ready
                    return
                }
                self.started(channel)
            }
    }

    private func started(_ channel: any Channel) {
        let alreadyClosed = listener.withLock { state -> Bool in
            if case .closed = state { return true }
            state = .listening(channel)
            return false
        }
        if alreadyClosed { channel.close(promise: nil) }
    }

    deinit {
        shutdown()
    }

    /// Stops accepting connections. Open tunnels end when their client closes them.
    func shutdown() {
        let channel = listener.withLock { state -> (any Channel)? in
            defer { state = .closed }
            if case .listening(let channel) = state { return channel }
            return nil
        }
        channel?.close(promise: nil)
    }

    /// A TCP socket bound to 127.0.0.1 on a free port and listening.
    ///
    /// The address is NIO's `SocketAddress` and the port is read from the bytes `getsockname`
    /// wrote (offset 2, network order, in every `sockaddr_in` layout): members of the C socket
    /// structs are not named here, because which module (Glibc or NIO's CNIOLinux) the compiler
    /// attributes them to varies from build to build, and member import visibility then
    /// refuses them.
    private static func bindLoopback() throws -> (CInt, Int) {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw failure("socket") }
        let loopback: SocketAddress
        do {
            loopback = try SocketAddress(ipAddress: "127.0.0.1", port: 0)
        } catch {
            close(descriptor)
            throw failure("address")
        }
        let bound = loopback.withSockAddr { bind(descriptor, $0, socklen_t($1)) }
        guard bound == 0, listen(descriptor, 256) == 0 else {
            let error = failure("bind")
            close(descriptor)
            throw error
        }
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard named == 0, length >= 4 else {
            let error = failure("getsockname")
            close(descriptor)
            throw error
        }
        let port = withUnsafeBytes(of: &storage) { Int($0[2]) << 8 | Int($0[3]) }
        return (descriptor, port)
    }

    private static func failure(_ call: String) -> WebImageError {
        .invalidDownloadOperation(reason: "the address policy's egress proxy could not start (\(call): errno \(errno))")
    }
}
