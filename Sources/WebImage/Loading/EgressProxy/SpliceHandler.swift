import NIOCore

/// One end of an opaque byte tunnel between two channels on the same event loop: bytes read on
/// one channel are written to the other (SPEC R-1's egress proxy, after `CONNECT`).
///
/// Backpressure: a channel's `read` is held back while the other channel is not writable (its
/// outbound buffer is over the high-water mark) and issued when it becomes writable again, so
/// at most one read's worth of bytes waits beyond the watermark per direction.
///
/// Ends: both channels allow remote half-closure. When one side stops sending (its input
/// closes), the other side's output is shut down once the bytes already written to it are
/// flushed, so a client that half-closes after its request still gets the answer; when both
/// directions have ended, or either channel closes or fails, both channels close (again after
/// flushing what was written). A half-closed tunnel lingers at most `halfClosedLinger`: a peer
/// that ignores the other side's end (or a client whose close looked like a half-close) cannot
/// hold the two connections open for ever. An end told to close or shut down before it is joined to its
/// channel does so as soon as it is joined, so no path leaves one side waiting on a peer that
/// is gone.
final class SpliceHandler: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private var partner: SpliceHandler?
    private var context: ChannelHandlerContext?
    private var pendingRead = false
    /// This channel's peer stopped sending (half-closed, or the channel ended).
    private var inputClosed = false
    /// This channel's output was shut down (or is being), because the partner's peer stopped sending.
    private var outputClosed = false
    /// What the partner asked for before this end was joined to its channel.
    private var closeWhenJoined = false
    private let halfClosedLinger: TimeAmount
    /// Closes this channel when the half-closed tunnel has lingered too long.
    private var lingerTimeout: Scheduled<Void>?

    private init(halfClosedLinger: TimeAmount) {
        self.halfClosedLinger = halfClosedLinger
    }

    /// Two joined ends: add one to each channel's pipeline.
    static func pair(halfClosedLinger: TimeAmount) -> (SpliceHandler, SpliceHandler) {
        let first = SpliceHandler(halfClosedLinger: halfClosedLinger)
        let second = SpliceHandler(halfClosedLinger: halfClosedLinger)
        first.partner = second
        second.partner = first
        return (first, second)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        if closeWhenJoined {
            closeAfterFlushing()
            return
        }
        if outputClosed {
            outputClosed = false
            shutDownOutputAfterFlushing()
        }
        // The partner may have held back a read while this end was not yet in its pipeline
        // (the upstream connection is set up before the client's end is joined).
        partner?.partnerBecameWritable()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        partner = nil
        lingerTimeout?.cancel()
        lingerTimeout = nil
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

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard case .some(.inputClosed) = event as? ChannelEvent else {
            context.fireUserInboundEventTriggered(event)
            return
        }
        inputClosed = true
        guard let partner else {
            context.close(promise: nil)
            return
        }
        if outputClosed {
            // Both directions have ended.
            self.partner = nil
            partner.closeAfterFlushing()
            context.close(promise: nil)
        } else {
            partner.shutDownOutputAfterFlushing()
        }
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

    /// Shuts this channel's output down once what was written to it is flushed: the partner's
    /// peer stopped sending. When this channel's own peer already stopped sending too, closes.
    private func shutDownOutputAfterFlushing() {
        guard let context else {
            outputClosed = true  // done in handlerAdded
            return
        }
        guard !outputClosed else { return }
        outputClosed = true
        if inputClosed {
            partner?.closeAfterFlushing()
            closeAfterFlushing()
            return
        }
        let flushed = context.eventLoop.makePromise(of: Void.self)
        context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(capacity: 0)), promise: flushed)
        flushed.futureResult.assumeIsolated().whenComplete { _ in
            // A channel that cannot shut down one direction is closed whole.
            let shut = context.eventLoop.makePromise(of: Void.self)
            context.close(mode: .output, promise: shut)
            shut.futureResult.assumeIsolated().whenFailure { _ in context.close(promise: nil) }
        }
        // This channel's peer has `halfClosedLinger` to finish; closing it closes the partner.
        lingerTimeout = context.eventLoop.assumeIsolated().scheduleTask(in: halfClosedLinger) {
            context.close(promise: nil)
        }
    }

    private func closeAfterFlushing() {
        guard let context else {
            closeWhenJoined = true  // done in handlerAdded
            return
        }
        partner = nil
        let flushed = context.eventLoop.makePromise(of: Void.self)
        context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(capacity: 0)), promise: flushed)
        flushed.futureResult.assumeIsolated().whenComplete { _ in
            context.close(promise: nil)
        }
    }
}
