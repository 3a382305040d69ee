import NIOCore
import NIOHTTP1

/// Tells ``KeepAliveConnections`` when one connection is idle: it has answered a request
/// (the response's end is written to the socket), answers none now and has received nothing
/// since. Two handlers share it on the channel's event loop: one before the HTTP decoder (any
/// byte received makes the connection busy), one after it (request heads and ends, response
/// ends).
final class KeepAliveTracker {
    private let connections: KeepAliveConnections
    private var id: UInt64?
    /// Requests received whose response has not been written whole.
    private var pending = 0
    /// Bytes arrived that did not end a request yet.
    private var receiving = false
    private var answered = false
    private var idle = false

    init(connections: KeepAliveConnections) {
        self.connections = connections
    }

    /// Adds the two handlers around the channel's HTTP request decoder (no-op without one).
    func install(in pipeline: ChannelPipeline.SynchronousOperations) {
        guard let decoder = try? pipeline.context(handlerType: ByteToMessageHandler<HTTPRequestDecoder>.self) else { return }
        try? pipeline.addHandler(RawSide(self), position: .before(decoder.handler))
        try? pipeline.addHandler(ParsedSide(self), position: .after(decoder.handler))
    }

    private func update(_ channel: any Channel) {
        guard let id else { return }
        let now = answered && pending == 0 && !receiving
        guard now != idle else { return }
        idle = now
        if now { connections.becameIdle(id, channel: channel) } else { connections.becameBusy(id) }
    }

    /// Before the decoder: the connection's start and end, and raw bytes.
    final class RawSide: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = ByteBuffer
        let tracker: KeepAliveTracker
        init(_ tracker: KeepAliveTracker) { self.tracker = tracker }

        func handlerAdded(context: ChannelHandlerContext) {
            if tracker.id == nil { tracker.id = tracker.connections.opened() }
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            if unwrapInboundIn(data).readableBytes > 0 {
                tracker.receiving = true
                tracker.update(context.channel)
            }
            context.fireChannelRead(data)
        }

        func channelInactive(context: ChannelHandlerContext) {
            if let id = tracker.id {
                tracker.id = nil
                tracker.connections.closed(id)
            }
            context.fireChannelInactive()
        }

        func handlerRemoved(context: ChannelHandlerContext) {
            if let id = tracker.id {
                tracker.id = nil
                tracker.connections.closed(id)
            }
        }
    }

    /// After the decoder: request heads and ends in, response ends out.
    final class ParsedSide: ChannelDuplexHandler, RemovableChannelHandler {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundIn = HTTPServerResponsePart
        let tracker: KeepAliveTracker
        init(_ tracker: KeepAliveTracker) { self.tracker = tracker }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head: tracker.pending += 1
            case .end: tracker.receiving = false
            case .body: break
            }
            tracker.update(context.channel)
            context.fireChannelRead(data)
        }

        func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
            guard case .end = unwrapOutboundIn(data) else {
                context.write(data, promise: promise)
                return
            }
            // Idle once the end is in the socket: closing it earlier would cut the response.
            let written = promise ?? context.eventLoop.makePromise()
            let channel = context.channel
            written.futureResult.assumeIsolated().whenSuccess { [tracker] in
                tracker.pending = max(0, tracker.pending - 1)
                tracker.answered = true
                tracker.update(channel)
            }
            context.write(data, promise: written)
        }
    }
}
