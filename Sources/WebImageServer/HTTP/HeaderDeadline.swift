import NIOCore
import NIOHTTP1

/// Closes a connection whose request head does not arrive whole within a deadline of its
/// first byte (Go's `ReadHeaderTimeout`, nginx's `client_header_timeout`): a client that
/// opens a request and trickles or stops its headers holds a connection for that long, not
/// for the idle timeout. With a first-byte timeout, a new connection that sends no byte at all
/// within it is closed too, so silent sockets cannot hold the client slots. Two handlers share one state on the channel's event loop: one before
/// the HTTP decoder sees the first byte of a request, one after it sees the finished head.
final class HeaderDeadline {
    private enum Phase { case fresh, idle, awaitingHead, inRequest }
    private var phase = Phase.fresh
    private var timer: Scheduled<Void>?
    let timeout: TimeAmount?
    let firstByteTimeout: TimeAmount?

    init(timeout: TimeAmount?, firstByteTimeout: TimeAmount? = nil) {
        self.timeout = timeout
        self.firstByteTimeout = firstByteTimeout
    }

    /// The connection is new: its first byte must come within the first-byte timeout.
    fileprivate func connectionStarted(_ context: ChannelHandlerContext) {
        guard phase == .fresh, timer == nil, let firstByteTimeout else { return }
        let channel = context.channel
        timer = context.eventLoop.assumeIsolated().scheduleTask(in: firstByteTimeout) { [weak self] in
            guard let self, self.phase == .fresh else { return }
            channel.close(promise: nil)
        }
    }

    /// Bytes arrived: the first of a request starts the clock.
    fileprivate func bytesArrived(_ context: ChannelHandlerContext) {
        if phase == .fresh {
            phase = .idle
            timer?.cancel()
            timer = nil
        }
        guard phase == .idle, let timeout else { return }
        phase = .awaitingHead
        let channel = context.channel
        timer = context.eventLoop.assumeIsolated().scheduleTask(in: timeout) { [weak self] in
            guard let self, self.phase == .awaitingHead else { return }
            channel.close(promise: nil)
        }
    }

    fileprivate func headArrived() {
        phase = .inRequest
        timer?.cancel()
        timer = nil
    }

    fileprivate func requestEnded() {
        phase = .idle
    }

    fileprivate func stop() {
        timer?.cancel()
        timer = nil
    }

    /// Adds the two handlers around the channel's HTTP request decoder (no-op without one).
    func install(in pipeline: ChannelPipeline.SynchronousOperations) {
        guard let decoder = try? pipeline.context(handlerType: ByteToMessageHandler<HTTPRequestDecoder>.self) else { return }
        try? pipeline.addHandler(RawSide(self), position: .before(decoder.handler))
        try? pipeline.addHandler(ParsedSide(self), position: .after(decoder.handler))
    }

    /// Before the decoder: raw bytes.
    final class RawSide: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = ByteBuffer
        let deadline: HeaderDeadline
        init(_ deadline: HeaderDeadline) { self.deadline = deadline }

        func handlerAdded(context: ChannelHandlerContext) {
            deadline.connectionStarted(context)
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            if unwrapInboundIn(data).readableBytes > 0 { deadline.bytesArrived(context) }
            context.fireChannelRead(data)
        }

        func channelInactive(context: ChannelHandlerContext) {
            deadline.stop()
            context.fireChannelInactive()
        }
    }

    /// After the decoder: request heads and ends.
    final class ParsedSide: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = HTTPServerRequestPart
        let deadline: HeaderDeadline
        init(_ deadline: HeaderDeadline) { self.deadline = deadline }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head: deadline.headArrived()
            case .end: deadline.requestEnded()
            case .body: break
            }
            context.fireChannelRead(data)
        }
    }
}
