import Foundation
import NIOCore
import NIOPosix

/// What every connection of one egress proxy shares.
struct EgressSettings: Sendable {
    let policy: AddressPolicy
    let outcomes: EgressOutcomes
    /// The longest wait for a connection to one checked address.
    let connectTimeout: TimeAmount
    /// The longest wait for the `CONNECT` request head.
    let headTimeout: TimeAmount
    /// How long a tunnel stays open once one side stopped sending and the other has not
    /// (an origin that ignores the end of its request must not hold the tunnel for ever).
    let halfClosedLinger: TimeAmount
    /// Counts the proxy's open connections to origins.
    let upstreams: EgressConnectionCount
    /// Resolves a host name to its addresses (blocking; run on NIO's thread pool):
    /// ``HostResolver/resolve(_:port:)``, or a test's stand-in. Called once per `CONNECT`.
    let resolve: @Sendable (String, Int) throws -> [SocketAddress]
}

/// The first handler of a connection to the egress proxy (SPEC R-1): reads one
/// `CONNECT host:port` request, checks the host name, resolves it off the event loop, checks
/// every resolved address against the ``AddressPolicy``, and only then connects — to a checked
/// address, never to the name again, so a second DNS answer cannot slip in between. It answers
/// `403` to a refusal, `502` when nothing could be connected (both recorded in
/// ``EgressOutcomes`` first), or `200` and replaces itself with a ``SpliceHandler`` joined to
/// the new connection.
///
/// Whichever side ends first ends the other: a client that goes away while the name is resolved
/// stops the connect before it starts, one that goes away (or stops sending) while the connect is
/// under way closes that connection attempt at once, not at the connect timeout; once the tunnel
/// is joined, ``SpliceHandler`` passes half-closes on.
final class EgressConnectHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// The largest `CONNECT` request head accepted.
    static let maximumHeadSize = 8 * 1024

    private enum State {
        case readingHead
        case connecting
        case spliced
        case closed
    }

    private let settings: EgressSettings
    private var state = State.readingHead
    private var buffered: ByteBuffer?
    private var headTimeout: Scheduled<Void>?
    /// The connection to the origin while it is being set up, closed if the client goes away.
    private var pendingUpstream: (any Channel)?

    init(settings: EgressSettings) {
        self.settings = settings
    }

    func channelActive(context: ChannelHandlerContext) {
        headTimeout = context.eventLoop.assumeIsolated().scheduleTask(in: settings.headTimeout) {
            if case .readingHead = self.state { context.close(promise: nil) }
        }
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        state = .closed
        headTimeout?.cancel()
        // The client went away while the origin was being connected: drop that attempt now.
        pendingUpstream?.close(promise: nil)
        pendingUpstream = nil
        context.fireChannelInactive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard case .some(.inputClosed) = event as? ChannelEvent else {
            context.fireUserInboundEventTriggered(event)
            return
        }
        // Before the tunnel is joined the client must wait for the answer to its CONNECT; its
        // end of input then means it has gone (a closed socket and a half-closed one look the
        // same here), so the connection and any connection attempt to the origin end now.
        // Once joined, the splice ends pass half-closes on.
        switch state {
        case .readingHead, .connecting:
            context.close(promise: nil)
        case .spliced, .closed:
            break
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = unwrapInboundIn(data)
        switch state {
        case .readingHead, .connecting:
            if buffered == nil {
                buffered = bytes
            } else {
                buffered?.writeBuffer(&bytes)
            }
            if let buffered, buffered.readableBytes > Self.maximumHeadSize {
                respond(context, status: "431 Request Header Fields Too Large")
                return
            }
            if case .readingHead = state { parseHead(context) }
        case .spliced, .closed:
            break
        }
    }

    // MARK: The CONNECT request

    private func parseHead(_ context: ChannelHandlerContext) {
        guard var buffer = buffered,
            let end = buffer.readableBytesView.firstRange(of: Array("\r\n\r\n".utf8))
        else { return }
        let headLength = end.upperBound - buffer.readerIndex
        let head = buffer.readString(length: headLength) ?? ""
        buffered = buffer
        headTimeout?.cancel()
        // "\r\n" is one Character in Swift: split on the string, not on "\r".
        let requestLine = (head.components(separatedBy: "\r\n").first ?? "").split(separator: " ")
        guard requestLine.count == 3, requestLine[0] == "CONNECT" else {
            respond(context, status: "405 Method Not Allowed")
            return
        }
        guard let (host, port) = Self.target(String(requestLine[1])) else {
            respond(context, status: "400 Bad Request")
            return
        }
        state = .connecting
        start(context, host: host, port: port)
    }

    /// `host:port` or `[v6]:port` → (host without brackets, port).
    static func target(_ text: String) -> (String, Int)? {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
            (1...65_535).contains(port)
        else { return nil }
        let host = AddressPolicy.bracketsRemoved(String(text[..<colon]))
        guard !host.isEmpty, host.count <= 255, !host.contains(where: { $0.isWhitespace || $0 == "/" }) else { return nil }
        return (host, port)
    }

    // MARK: Check, resolve, check, connect

    private func start(_ context: ChannelHandlerContext, host: String, port: Int) {
        let key = EgressOutcomes.key(host: host, port: port)
        if let reason = settings.policy.refusalReason(forHost: host) {
            refuse(context, .refused(host: host, address: "", reason: reason), key: key)
            return
        }
        if let literal = IPAddress(host), let address = try? SocketAddress(ipAddress: literal.description, port: port) {
            resolved(context, .success([address]), host: host, key: key)
            return
        }
        let resolve = settings.resolve
        NIOThreadPool.singleton.runIfActive(eventLoop: context.eventLoop) {
            try resolve(host, port)
        }.assumeIsolated().whenComplete { result in
            self.resolved(context, result, host: host, key: key)
        }
    }

    private func resolved(
        _ context: ChannelHandlerContext, _ result: Result<[SocketAddress], any Error>, host: String, key: String
    ) {
        guard case .connecting = state else { return }
        let addresses: [SocketAddress]
        switch result {
        case .success(let found):
            addresses = found
        case .failure(let error):
            refuse(context, .failed(Self.transportError(error, host: host)), key: key, status: "502 Bad Gateway")
            return
        }
        // Every address is checked before any is tried: a name with one refused answer is
        // refused whole (mixed public and private answers are how rebinding attacks look).
        for address in addresses {
            let text = address.ipAddress ?? ""
            let reason = IPAddress(text).map(settings.policy.refusalReason(for:)) ?? "not an IP address"
            if let reason {
                refuse(context, .refused(host: host, address: text, reason: reason), key: key)
                return
            }
        }
        connect(context, to: addresses, index: 0, host: host, key: key, lastError: nil)
    }

    private func connect(
        _ context: ChannelHandlerContext, to addresses: [SocketAddress], index: Int, host: String, key: String,
        lastError: (any Error)?
    ) {
        guard case .connecting = state else { return }
        guard index < addresses.count else {
            let error = lastError ?? ChannelError.connectTimeout(settings.connectTimeout)
            refuse(context, .failed(Self.transportError(error, host: host)), key: key, status: "502 Bad Gateway")
            return
        }
        let (inbound, outbound) = SpliceHandler.pair(halfClosedLinger: settings.halfClosedLinger)
        let outboundEnd = NIOLoopBound(outbound, eventLoop: context.eventLoop)
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        let upstreams = settings.upstreams
        ClientBootstrap(group: context.eventLoop)
            .connectTimeout(settings.connectTimeout)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelOption(.allowRemoteHalfClosure, value: true)
            .channelInitializer { channel in
                upstreams.opened(channel)
                return channel.eventLoop.makeCompletedFuture {
                    handler.value.pendingUpstream = channel
                    try channel.pipeline.syncOperations.addHandler(outboundEnd.value)
                }
            }
            .connect(to: addresses[index])
            .assumeIsolated()
            .whenComplete { result in
                self.pendingUpstream = nil
                switch result {
                case .success(let channel):
                    self.tunnel(context, to: channel, inbound: inbound, key: key)
                case .failure(let error):
                    self.connect(context, to: addresses, index: index + 1, host: host, key: key, lastError: error)
                }
            }
    }

    /// Answers `200`, then hands the connection to `inbound`, joined to `channel`.
    private func tunnel(_ context: ChannelHandlerContext, to channel: any Channel, inbound: SpliceHandler, key: String) {
        guard case .connecting = state else {
            channel.close(promise: nil)  // the client went away meanwhile
            return
        }
        state = .spliced
        settings.outcomes.clear(key)
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: "HTTP/1.1 200 Connection Established\r\n\r\n")), promise: nil)
        do {
            try context.pipeline.syncOperations.addHandler(inbound, position: .after(self))
        } catch {
            channel.close(promise: nil)
            context.close(promise: nil)
            return
        }
        if let leftover = buffered, leftover.readableBytes > 0 {
            channel.writeAndFlush(leftover, promise: nil)
        }
        buffered = nil
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }

    // MARK: Refusals

    private func refuse(
        _ context: ChannelHandlerContext, _ failure: EgressOutcomes.Failure, key: String, status: String = "403 Forbidden"
    ) {
        settings.outcomes.record(failure, for: key)
        respond(context, status: status)
    }

    /// Answers `status` and closes once it is written.
    private func respond(_ context: ChannelHandlerContext, status: String) {
        state = .closed
        let written = context.eventLoop.makePromise(of: Void.self)
        let response = "HTTP/1.1 \(status)\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: response)), promise: written)
        written.futureResult.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
    }

    static func transportError(_ error: any Error, host: String) -> TransportError {
        if case .transport(let transport) = TransportErrorMapping.map(error) {
            return transport.kind == .other ? TransportError(.cannotConnectToHost, "cannot connect to \(host): \(transport.message)") : transport
        }
        return TransportError(.cannotConnectToHost, "cannot connect to \(host): \(error)")
    }
}
