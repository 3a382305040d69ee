import NIOCore

/// One end of an opaque byte tunnel between two channels on the same event loop: bytes read on
/// one channel are written to the other (SPEC R-1's egress proxy, after `CONNECT`).
///
/// Backpressure: a channel's `read` is held back while the other channel is not writable (its
/// outbound buffer is over the high-water mark) and issued when it becomes writable again, so
/// at most one read's worth of bytes waits beyond the watermark per direction. When either
/// channel closes, the other is closed after the bytes already written to it are flushed (a
/// server's response followed by its close still reaches the client whole).
final class SpliceHandler: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private var partner: SpliceHandler?
    private var context: ChannelHandlerContext?
    private var pendingRead = false

    /// Two joined ends: add one to each channel's pipeline.
    static func pair() -> (SpliceHandler, SpliceHandler) {
        let first = SpliceHandler()
        let second = SpliceHandler()
        first.partner = second
        second.partner = first
        return (first, second)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        partner = nil
    }

    // MARK: Inbound: pass to the partner

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        partner?.write(unwrapInboundIn(data))
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        partner?.flush()
    }

    func channelInactive(context: ChannelHandlerContext) {
        let partner = self.partner
        self.partner = nil
        partner?.closeAfterFlushing()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable { partner?.partnerBecameWritable() }
        context.fireChannelWritabilityChanged()
    }

    // MARK: Outbound: reads wait for the partner's room

    func read(context: ChannelHandlerContext) {
        if partner?.isWritable ?? true {
            context.read()
        } else {
            pendingRead = true
        }
    }

    // MARK: Called by the partner (same event loop)

    private var isWritable: Bool { context?.channel.isWritable ?? false }

    private func write(_ buffer: ByteBuffer) {
        context?.write(wrapOutboundOut(buffer), promise: nil)
    }

    private func flush() {
        context?.flush()
    }

    private func partnerBecameWritable() {
        guard pendingRead, let context else { return }
        pendingRead = false
        context.read()
    }

    private func closeAfterFlushing() {
        guard let context else { return }
        partner = nil
        let flushed = context.eventLoop.makePromise(of: Void.self)
        context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(capacity: 0)), promise: flushed)
        flushed.futureResult.assumeIsolated().whenComplete { _ in
            context.close(promise: nil)
        }
    }
}
