import Foundation
import NIOCore
import NIOPosix
import Synchronization

/// A TCP server on 127.0.0.1 (random port) that answers each request with scripted raw bytes —
/// not necessarily HTTP — then closes the connection, with FIN or with a reset (or keeps it, to
/// drop the next request sent on it). For testing
/// clients against hostile or broken servers (malformed status lines, contradictory lengths,
/// broken chunking, garbage) that ``HTTPTestServer``'s HTTP encoder cannot produce.
///
/// A request is read up to the end of its head (`\r\n\r\n`, at most 64 KiB); its target picks
/// the script (``script(_:_:)``); an unknown target is answered by closing at once.
public final class RawResponseServer: Sendable {
    /// What the server writes for one request.
    public struct Script: Sendable {
        /// The bytes written.
        public var bytes: [UInt8]
        /// Write them in pieces of this many bytes (flushing each), or all at once.
        public var pieceSize: Int?
        /// End with a TCP reset (`SO_LINGER` 0) instead of an orderly close.
        public var reset: Bool
        /// Keep the connection open after writing; the next request on it is then dropped
        /// (the connection closes without an answer), as when a server's keep-alive timeout
        /// closes an idle connection just as the client reuses it.
        public var keepsConnection: Bool
        /// With ``pieceSize``: wait this long before each piece after the first — a slow-drip
        /// server that is never idle for long but takes `pieces × interval` to finish.
        public var pieceInterval: TimeAmount?

        /// A script writing `bytes`.
        public init(
            bytes: [UInt8], pieceSize: Int? = nil, reset: Bool = false, keepsConnection: Bool = false,
            pieceInterval: TimeAmount? = nil
        ) {
            self.bytes = bytes
            self.pieceSize = pieceSize
            self.reset = reset
            self.keepsConnection = keepsConnection
            self.pieceInterval = pieceInterval
        }
    }

    private struct State {
        var scripts: [String: Script] = [:]
        var requests: [String: Int] = [:]
        var dropped = 0
        var channel: (any Channel)?
    }

    private let state = Mutex(State())

    /// A server that is not listening yet; call ``start()``.
    public init() {}

    /// The port, once started.
    public var port: Int { state.withLock { $0.channel?.localAddress?.port ?? 0 } }

    /// `http://127.0.0.1:<port><path>`.
    public func url(_ path: String) -> URL {
        // Built from an integer port and a test-supplied path.
        URL(string: "http://127.0.0.1:\(port)\(path)") ?? URL(fileURLWithPath: "/")
    }

    /// Answers requests for `path` (the request target, query included) with `script`.
    public func script(_ path: String, _ script: Script) {
        state.withLock { $0.scripts[path] = script }
    }

    /// How many requests arrived for `path`.
    public func requestCount(_ path: String) -> Int {
        state.withLock { $0.requests[path, default: 0] }
    }

    /// How many requests arrived on a kept connection and were dropped unanswered.
    public var droppedRequestCount: Int { state.withLock { $0.dropped } }

    /// Binds 127.0.0.1 on a free port.
    public func start() async throws {
        let channel = try await ServerBootstrap(group: LoopbackThreads.group)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(RawResponder(server: self))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        state.withLock { $0.channel = channel }
    }

    /// Stops listening (connections being answered finish on their own).
    public func shutdown() async {
        let channel = state.withLock { $0.channel }
        try? await channel?.close()
    }

    fileprivate func requestDropped() {
        state.withLock { $0.dropped += 1 }
    }

    fileprivate func takeScript(for target: String) -> Script? {
        state.withLock { state in
            state.requests[target, default: 0] += 1
            return state.scripts[target]
        }
    }
}

/// Reads one request head, then writes the script and closes. Runs on the channel's event loop.
private final class RawResponder: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private static let headLimit = 64 * 1024
    private let server: RawResponseServer
    private var received: [UInt8] = []
    private var answered = false

    init(server: RawResponseServer) {
        self.server = server
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !answered else {
            // A request on a connection kept after its answer: drop it.
            server.requestDropped()
            context.close(promise: nil)
            return
        }
        var buffer = unwrapInboundIn(data)
        received += buffer.readBytes(length: buffer.readableBytes) ?? []
        guard let end = Self.endOfHead(received) else {
            if received.count > Self.headLimit { context.close(promise: nil) }
            return
        }
        answered = true
        let line = String(decoding: received[..<end].prefix { $0 != 0x0D }, as: UTF8.self)
        let parts = line.split(separator: " ")
        let target = parts.count >= 2 ? String(parts[1]) : ""
        guard let script = server.takeScript(for: target) else {
            context.close(promise: nil)
            return
        }
        let pieceSize = max(1, script.pieceSize ?? max(1, script.bytes.count))
        if let interval = script.pieceInterval {
            Self.drip(script, from: 0, pieceSize: pieceSize, interval: interval, channel: context.channel)
            return
        }
        var offset = 0
        repeat {
            let piece = script.bytes[offset..<min(script.bytes.count, offset + pieceSize)]
            context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: piece)), promise: nil)
            offset += pieceSize
        } while offset < script.bytes.count
        Self.finish(script, channel: context.channel)
    }

    /// Writes the piece at `offset`, then the next one `interval` later, until the script ends
    /// or the client closes the connection.
    private static func drip(_ script: RawResponseServer.Script, from offset: Int, pieceSize: Int, interval: TimeAmount, channel: any Channel) {
        guard channel.isActive else { return }
        let piece = script.bytes[offset..<min(script.bytes.count, offset + pieceSize)]
        channel.writeAndFlush(channel.allocator.buffer(bytes: piece), promise: nil)
        let next = offset + pieceSize
        guard next < script.bytes.count else {
            finish(script, channel: channel)
            return
        }
        channel.eventLoop.scheduleTask(in: interval) {
            drip(script, from: next, pieceSize: pieceSize, interval: interval, channel: channel)
        }
    }

    /// Closes after the script: kept, reset or an orderly close.
    private static func finish(_ script: RawResponseServer.Script, channel: any Channel) {
        if script.keepsConnection { return }
        if script.reset, let provider = channel as? any SocketOptionProvider {
            provider.setSoLinger(linger(l_onoff: 1, l_linger: 0)).whenComplete { _ in channel.close(promise: nil) }
        } else {
            channel.close(promise: nil)
        }
    }

    private static func endOfHead(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4)
        where bytes[index] == 0x0D && bytes[index + 1] == 0x0A && bytes[index + 2] == 0x0D && bytes[index + 3] == 0x0A {
            return index
        }
        return nil
    }
}
