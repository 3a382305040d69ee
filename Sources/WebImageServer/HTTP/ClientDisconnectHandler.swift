import Hummingbird
import NIOCore
import NIOHTTP1
import Synchronization

/// A channel handler that notices a client going away while its request is being answered:
/// the end of its input (a FIN: Hummingbird allows half-closed connections, so the channel
/// stays open) or the end of the connection. The image routes find it through the channel of
/// an ``ImageRequestContext`` (or any ``ChannelRequestContext``), which lets them keep HTTP
/// keep-alive and still cancel abandoned work (SPEC V-8). It only passes everything on.
///
/// Add it with ``ImageServer/httpServer(idleTimeout:headerTimeout:firstByteTimeout:)``, or to your own
/// `HTTP1Channel.Configuration.additionalChannelHandlers`.
public final class ClientDisconnectHandler: ChannelInboundHandler, RemovableChannelHandler {
    public typealias InboundIn = NIOAny

    private let connection = ClientConnection()
    private let headerDeadline: HeaderDeadline?
    private let keepAlive: KeepAliveTracker?

    /// A handler for one connection. With `headerTimeout`, a request whose head has not
    /// arrived whole that long after its first byte closes the connection; with
    /// `firstByteTimeout`, so does a connection that sends no byte that long after it opened.
    public convenience init(headerTimeout: Duration? = nil, firstByteTimeout: Duration? = nil) {
        self.init(headerTimeout: headerTimeout, firstByteTimeout: firstByteTimeout, connections: nil)
    }

    /// A handler that also reports the connection's idle keep-alive periods to `connections`,
    /// which closes the oldest idle connection at the client cap.
    init(headerTimeout: Duration?, firstByteTimeout: Duration?, connections: KeepAliveConnections?) {
        func amount(_ duration: Duration?) -> TimeAmount? { duration.map { .nanoseconds(ServiceMetrics.nanoseconds($0)) } }
        headerDeadline = headerTimeout == nil && firstByteTimeout == nil
            ? nil : HeaderDeadline(timeout: amount(headerTimeout), firstByteTimeout: amount(firstByteTimeout))
        keepAlive = connections.map(KeepAliveTracker.init(connections:))
    }

    public func handlerAdded(context: ChannelHandlerContext) {
        ClientConnection.register(connection, for: context.channel)
        headerDeadline?.install(in: context.pipeline.syncOperations)
        keepAlive?.install(in: context.pipeline.syncOperations)
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
