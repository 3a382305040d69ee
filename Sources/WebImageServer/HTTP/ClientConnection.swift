import Hummingbird
import NIOCore
import NIOHTTP1
import Synchronization

/// Whether the client of one HTTP connection is still there, and what to cancel when it goes
/// (SPEC V-8). One per connection, kept by ``ClientDisconnectHandler``.
final class ClientConnection: Sendable {
    private struct State {
        var gone = false
        var nextToken: UInt64 = 0
        var cancellers: [UInt64: @Sendable () -> Void] = [:]
    }
    private let state = Mutex(State())

    /// Whether the client closed its side (or the connection ended).
    var isGone: Bool { state.withLock { $0.gone } }

    /// Runs `cancel` when the client goes away; `nil` (and `cancel` not kept) when it is
    /// already gone. Give the token back with ``forget(_:)`` when the work ends.
    func onGone(_ cancel: @escaping @Sendable () -> Void) -> UInt64? {
        state.withLock { state in
            guard !state.gone else { return nil }
            state.nextToken &+= 1
            state.cancellers[state.nextToken] = cancel
            return state.nextToken
        }
    }

    /// Stops watching for the work `token` names.
    func forget(_ token: UInt64) {
        _ = state.withLock { $0.cancellers.removeValue(forKey: token) }
    }

    /// The client went away: cancel whatever is registered, once.
    func clientWentAway() {
        let cancellers = state.withLock { state -> [@Sendable () -> Void] in
            guard !state.gone else { return [] }
            state.gone = true
            defer { state.cancellers = [:] }
            return Array(state.cancellers.values)
        }
        for cancel in cancellers { cancel() }
    }

    /// Runs `operation` in a task of its own that is cancelled if the client goes away first
    /// (or if the caller is cancelled).
    func cancellingOnClose<Value: Sendable>(_ operation: @escaping @Sendable () async throws -> Value) async throws -> Value {
        let work = Task { try await operation() }
        guard let token = onGone({ work.cancel() }) else {
            work.cancel()
            return try await work.value
        }
        defer { forget(token) }
        return try await withTaskCancellationHandler {
            try await work.value
        } onCancel: {
            work.cancel()
        }
    }

    /// The connections of every channel that has a ``ClientDisconnectHandler``, by channel.
    private static let registry = Mutex<[ObjectIdentifier: ClientConnection]>([:])

    /// The connection record of `channel`, if its pipeline has a ``ClientDisconnectHandler``.
    static func of(_ channel: any Channel) -> ClientConnection? {
        registry.withLock { $0[ObjectIdentifier(channel)] }
    }

    fileprivate static func register(_ connection: ClientConnection, for channel: any Channel) {
        registry.withLock { $0[ObjectIdentifier(channel)] = connection }
    }

    fileprivate static func unregister(_ channel: any Channel) {
        _ = registry.withLock { $0.removeValue(forKey: ObjectIdentifier(channel)) }
    }
}

/// A channel handler that notices a client going away while its request is being answered:
/// the end of its input (a FIN: Hummingbird allows half-closed connections, so the channel
/// stays open) or the end of the connection. The image routes find it through the channel of
/// an ``ImageRequestContext`` (or any ``ChannelRequestContext``), which lets them keep HTTP
/// keep-alive and still cancel abandoned work (SPEC V-8). It only passes everything on.
///
/// Add it with ``ImageServer/httpServer(idleTimeout:headerTimeout:)``, or to your own
/// `HTTP1Channel.Configuration.additionalChannelHandlers`.
public final class ClientDisconnectHandler: ChannelInboundHandler, RemovableChannelHandler {
    public typealias InboundIn = NIOAny

    private let connection = ClientConnection()
    private let headerDeadline: HeaderDeadline?

    /// A handler for one connection. With `headerTimeout`, a request whose head has not
    /// arrived whole that long after its first byte closes the connection.
    public init(headerTimeout: Duration? = nil) {
        headerDeadline = headerTimeout.map { HeaderDeadline(timeout: .nanoseconds(ServiceMetrics.nanoseconds($0))) }
    }

    public func handlerAdded(context: ChannelHandlerContext) {
        ClientConnection.register(connection, for: context.channel)
        headerDeadline?.install(in: context.pipeline.syncOperations)
        // HTTP/1.0 without keep-alive must end with the connection: the version is gone once
        // the request is converted to HTTP types, so mark such requests before that happens.
        if let decoder = try? context.pipeline.syncOperations.context(handlerType: ByteToMessageHandler<HTTPRequestDecoder>.self) {
            try? context.pipeline.syncOperations.addHandler(ConnectionCloseMarker(), position: .after(decoder.handler))
        }
    }

    public func handlerRemoved(context: ChannelHandlerContext) {
        ClientConnection.unregister(context.channel)
        connection.clientWentAway()
    }

    public func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.fireChannelRead(data)
    }

    public func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, event == .inputClosed { connection.clientWentAway() }
        context.fireUserInboundEventTriggered(event)
    }

    public func channelInactive(context: ChannelHandlerContext) {
        connection.clientWentAway()
        context.fireChannelInactive()
    }
}

/// Gives every request that does not ask to keep its connection (HTTP/1.0 without
/// `Connection: keep-alive`, or `Connection: close` in any case) the header
/// `Connection: close`, which Hummingbird reads to close the connection after the response.
/// Without it an HTTP/1.0 client that waits for the end of the connection would wait for the
/// idle timeout.
final class ConnectionCloseMarker: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case var .head(head) = unwrapInboundIn(data), !head.isKeepAlive else {
            context.fireChannelRead(data)
            return
        }
        head.headers.replaceOrAdd(name: "connection", value: "close")
        context.fireChannelRead(wrapInboundOut(.head(head)))
    }
}

/// A request context that knows its connection's channel, so the image routes can watch for
/// the client going away without consuming the request (and keep the connection alive).
public protocol ChannelRequestContext: RequestContext {
    /// The request's connection.
    var channel: any Channel { get }
}

/// The request context of ``ImageServer``'s application: Hummingbird's basic context plus the
/// connection's channel. Use it for your own router (`Router(context: ImageRequestContext.self)`)
/// together with ``ImageServer/httpServer(idleTimeout:headerTimeout:)`` to get keep-alive on image routes.
public struct ImageRequestContext: ChannelRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let channel: any Channel

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }
}
