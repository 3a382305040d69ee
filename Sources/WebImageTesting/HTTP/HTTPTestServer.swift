import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// A real HTTP server on SwiftNIO for loader tests, bound to 127.0.0.1 on a random port.
///
/// Plain HTTP/1.1 by default. ``init(tls:)`` serves HTTPS instead, with a certificate generated
/// at test time (``certificate``) and HTTP/2 or HTTP/1.1 chosen by ALPN; the same scripted
/// routes serve both protocols, and each ``Request`` records the ``ProtocolVersion`` it came on.
///
/// Routes are scripted per test (``route(_:_:)``): fixed bytes, any status and headers,
/// responses held at a ``Gate`` (before the head or part-way through the body), delays,
/// slow/chunked bodies, truncation, closed connections, redirects, conditional responses.
/// The server runs on threads of its own (an event loop group and a task executor apart from
/// the concurrency pool and from the clients' event loops), so a busy pool cannot delay its
/// answers. The server counts requests per path, records request headers, and tracks how
/// many responses are in flight at once (``maxInFlight``) and how many were abandoned by the
/// client (``abortedResponses``), so tests can assert coalescing, limits and cancellation.
///
/// ```swift
/// let server = HTTPTestServer()
/// try await server.start()
/// defer { Task { await server.shutdown() } }
/// server.route("/a.png", .ok(bytes, contentType: "image/png"))
/// ```
public final class HTTPTestServer: Sendable {
    private struct State {
        var routes: [String: Handler] = [:]
        var requests: [Request] = []
        var counts: [String: Int] = [:]
        var inFlight = 0
        var maxInFlight = 0
        var aborted = 0
        var connections = 0
        var port: Int?
        var channel: (any Channel)?
        var serverTask: Task<Void, Never>?
    }

    /// Requests recorded at most (older ones are dropped from ``requests(for:)``; counts stay).
    public static let maxRecordedRequests = 10_000

    private let state = Mutex(State())
    let group: MultiThreadedEventLoopGroup
    /// The TLS mode, or `nil` for plain HTTP/1.1.
    public let tls: TLS?
    /// The certificate the server presents in TLS mode, or `nil`.
    public let certificate: SelfSignedCertificate?

    /// A plain HTTP/1.1 server that is not listening yet; call ``start()``.
    public init() {
        group = LoopbackThreads.group
        tls = nil
        certificate = nil
    }

    /// An HTTPS server that is not listening yet; call ``start()``. Generates a fresh
    /// self-signed certificate for `localhost` and `127.0.0.1` (see ``certificate``).
    public convenience init(tls: TLS) throws {
        self.init(tls: tls, certificate: try SelfSignedCertificate())
    }

    /// An HTTPS server that is not listening yet and presents `certificate`; call ``start()``.
    public init(tls: TLS, certificate: SelfSignedCertificate) {
        group = LoopbackThreads.group
        self.tls = tls
        self.certificate = certificate
    }

    /// The port, once started.
    public var port: Int { state.withLock { $0.port ?? 0 } }

    /// `http://127.0.0.1:<port><path>`, or `https://…` in TLS mode.
    public func url(_ path: String) -> URL {
        let scheme = tls == nil ? "http" : "https"
        // The string is built from an integer port and a test-supplied path.
        return URL(string: "\(scheme)://127.0.0.1:\(port)\(path)") ?? URL(fileURLWithPath: "/invalid")
    }

    /// Scripts the response for `path`.
    public func route(_ path: String, _ response: Response) {
        route(path) { _ in response }
    }

    /// Scripts `path` with a handler called for each request.
    public func route(_ path: String, handler: @escaping Handler) {
        state.withLock { $0.routes[path] = handler }
    }

    /// Requests received for `path` (any query).
    public func requestCount(_ path: String) -> Int { state.withLock { $0.counts[path] ?? 0 } }
    /// All requests received.
    public var totalRequestCount: Int { state.withLock { $0.counts.values.reduce(0, +) } }
    /// The recorded requests for `path`, oldest first.
    public func requests(for path: String) -> [Request] { state.withLock { $0.requests.filter { $0.path == path } } }
    /// The most responses that were being produced at the same time.
    public var maxInFlight: Int { state.withLock { $0.maxInFlight } }
    /// Responses being produced now.
    public var inFlight: Int { state.withLock { $0.inFlight } }
    /// Responses the client abandoned (connection closed before the response was complete).
    public var abortedResponses: Int { state.withLock { $0.aborted } }
    /// Connections accepted.
    public var connectionCount: Int { state.withLock { $0.connections } }

    /// Binds 127.0.0.1 on a random port and starts serving.
    public func start() async throws {
        let (channel, task) = try await {
            if let tls, let certificate { try await startTLS(tls, certificate: certificate) } else { try await startPlain() }
        }()
        let port = channel.localAddress?.port ?? 0
        state.withLock {
            $0.port = port
            $0.channel = channel
            $0.serverTask = task
        }
    }

    /// Counts an accepted TCP connection.
    func connectionAccepted() {
        state.withLock { $0.connections += 1 }
    }

    private func startPlain() async throws -> (any Channel, Task<Void, Never>) {
        let channel = try await ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .bind(host: "127.0.0.1", port: 0) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    return try NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>(
                        wrappingChannelSynchronously: channel)
                }
            }
        let task = Task(executorPreference: LoopbackThreads.executor) { [self] in
            await withDiscardingTaskGroup { connections in
                do {
                    try await channel.executeThenClose { inbound in
                        for try await connection in inbound {
                            connectionAccepted()
                            connections.addTask { await self.serve(connection, over: .http1_1) }
                        }
                    }
                } catch {
                    // The listening socket closed (shutdown): stop accepting.
                }
                connections.cancelAll()
            }
        }
        return (channel.channel, task)
    }

    /// Stops listening, closes every connection and waits for the handlers to end.
    public func shutdown() async {
        let (channel, task) = state.withLock { ($0.channel, $0.serverTask) }
        try? await channel?.close()
        task?.cancel()
        await task?.value
    }

    /// Serves the requests of one HTTP/1.1 connection, or the one request of an HTTP/2 stream.
    func serve(_ connection: NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>, over version: ProtocolVersion) async {
        _ = try? await connection.executeThenClose { inbound, outbound async throws -> Void in
            var head: HTTPRequestHead?
            for try await part in inbound {
                switch part {
                case .head(let received):
                    head = received
                case .body:
                    break
                case .end:
                    guard let received = head else { continue }
                    head = nil
                    let keepOpen = try await respond(
                        to: received, over: version, channel: connection.channel, outbound: outbound)
                    if case .reset = keepOpen {
                        // SO_LINGER 0: closing sends RST instead of FIN. (An HTTP/2 stream is
                        // no socket: closing it unfinished sends RST_STREAM.)
                        if let provider = connection.channel as? any SocketOptionProvider {
                            try await provider.setSoLinger(linger(l_onoff: 1, l_linger: 0)).get()
                        }
                    }
                    if keepOpen != .keepOpen { return }
                }
            }
        }
    }

    /// What happens to the connection after a response.
    private enum Ending { case keepOpen, close, reset }

    /// Answers one request; returns what happens to the connection.
    private func respond(
        to head: HTTPRequestHead, over version: ProtocolVersion, channel: any Channel,
        outbound: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>
    ) async throws -> Ending {
        let path = String(head.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
        let request = Request(
            method: head.method.rawValue, path: path, uri: head.uri,
            headers: head.headers.map { (name: $0.name, value: $0.value) }, protocolVersion: version)
        let handler = state.withLock { state -> Handler? in
            state.counts[path, default: 0] += 1
            if state.requests.count >= Self.maxRecordedRequests { state.requests.removeFirst() }
            state.requests.append(request)
            state.inFlight += 1
            state.maxInFlight = max(state.maxInFlight, state.inFlight)
            return state.routes[path]
        }
        var finished = false
        defer {
            if !finished { state.withLock { $0.inFlight -= 1 } }
        }
        let response = handler?(request) ?? Response.status(404)
        do {
            if let gate = response.gate { try await gate.wait(unlessClosed: channel.closeFuture) }
            if response.headDelay > .zero { try await Task.sleep(for: response.headDelay) }
            if response.action == .close {
                state.withLock { $0.inFlight -= 1 }
                finished = true
                return response.reset ? .reset : .close
            }
            var headers = HTTPHeaders(response.headers.map { ($0.name, $0.value) })
            let truncated = response.declaredLength.map { $0 > response.body.count } ?? false
            if response.chunked {
                headers.replaceOrAdd(name: "Transfer-Encoding", value: "chunked")
            } else {
                headers.replaceOrAdd(name: "Content-Length", value: String(response.declaredLength ?? response.body.count))
            }
            let status = HTTPResponseStatus(statusCode: response.status)
            try await outbound.write(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers)))
            let pause = response.bodyPause.map { min(max(0, $0.afterBytes), response.body.count) }
            let pieces = Self.split(response.body, size: response.chunkSize, cutAt: pause)
            var sent = 0
            for (index, piece) in pieces.enumerated() {
                if let pause, let gate = response.bodyPause?.gate, sent == pause {
                    try await gate.wait(unlessClosed: channel.closeFuture)
                }
                sent += piece.count
                if index > 0, response.chunkDelay > .zero { try await Task.sleep(for: response.chunkDelay) }
                if index == 1, let bodyGate = response.bodyGate { try await bodyGate.wait() }
                if index == pieces.count - 1, !truncated {
                    // Leave the in-flight count before the client can possibly see the last byte.
                    state.withLock { $0.inFlight -= 1 }
                    finished = true
                }
                try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: piece))))
            }
            if truncated {
                state.withLock { $0.inFlight -= 1 }
                finished = true
                return response.reset ? .reset : .close
            }
            if !finished {
                state.withLock { $0.inFlight -= 1 }
                finished = true
            }
            // Written on the channel and awaited, so that the whole response has left before an
            // HTTP/2 stream is closed (closing a stream with writes pending flow control would
            // drop them).
            try await channel.writeAndFlush(HTTPServerResponsePart.end(nil)).get()
            return .keepOpen
        } catch {
            if !finished { state.withLock { $0.aborted += 1 } }
            throw error
        }
    }

    /// `body` in pieces of `size` bytes (one piece when `nil`), with a piece boundary at
    /// `cut` bytes when given.
    private static func split(_ body: Data, size: Int?, cutAt cut: Int? = nil) -> [Data] {
        guard !body.isEmpty else { return [] }
        guard let cut, cut > 0, cut < body.count else { return split(body, size: size) }
        let head = body.subdata(in: body.startIndex..<body.startIndex + cut)
        let tail = body.subdata(in: body.startIndex + cut..<body.endIndex)
        return split(head, size: size) + split(tail, size: size)
    }

    private static func split(_ body: Data, size: Int?) -> [Data] {
        guard !body.isEmpty else { return [] }
        let step = max(1, size ?? body.count)
        return stride(from: 0, to: body.count, by: step).map { start in
            body.subdata(in: body.startIndex + start..<body.startIndex + min(body.count, start + step))
        }
    }
}
