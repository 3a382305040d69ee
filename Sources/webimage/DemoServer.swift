import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// The demo's gallery server: a small static HTTP/1.1 server on 127.0.0.1 (random port), built
/// on SwiftNIO. It answers `GET` for the routed paths with fixed bytes (404 otherwise), counts
/// requests per path, and can hold chosen responses until ``Gate/open()`` so that the demo can
/// show coalescing without depending on timing. Loopback only; no TLS; request bodies ignored.
final class DemoServer: Sendable {
    /// One routed response.
    struct Response: Sendable {
        var status: HTTPResponseStatus = .ok
        var body: Data
        var contentType: String
        /// Held until this gate opens.
        var gate: Gate?

        /// `200 OK` with `body`.
        static func ok(_ body: Data, contentType: String) -> Response {
            Response(body: body, contentType: contentType)
        }
    }

    /// Holds responses back until opened. A held response waits at most ``maximumWait`` and
    /// then goes out anyway, so a gate nobody opens cannot hang the demo.
    final class Gate: Sendable {
        static let maximumWait: Duration = .seconds(60)
        private let isOpen = Mutex(false)

        /// Lets every held and future response through.
        func open() { isOpen.withLock { $0 = true } }

        func wait() async {
            let deadline = ContinuousClock.now + Self.maximumWait
            while !isOpen.withLock({ $0 }), ContinuousClock.now < deadline {
                try? await Task.sleep(for: .milliseconds(5))
            }
        }
    }

    private struct State {
        var routes: [String: Response] = [:]
        var counts: [String: Int] = [:]
        var port = 0
        var channel: (any Channel)?
        var task: Task<Void, Never>?
    }

    private let state = Mutex(State())

    /// `http://127.0.0.1:<port><path>`.
    func url(_ path: String) -> URL {
        let port = state.withLock { $0.port }
        return URL(string: "http://127.0.0.1:\(port)\(path)") ?? URL(fileURLWithPath: "/invalid")
    }

    /// Serves `response` at `path`.
    func route(_ path: String, _ response: Response) {
        state.withLock { $0.routes[path] = response }
    }

    /// Requests received for `path`.
    func requestCount(_ path: String) -> Int { state.withLock { $0.counts[path] ?? 0 } }
    /// All requests received.
    var totalRequestCount: Int { state.withLock { $0.counts.values.reduce(0, +) } }

    /// Binds 127.0.0.1 on a random port and starts serving.
    func start() async throws {
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .bind(host: "127.0.0.1", port: 0) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    return try NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>(wrappingChannelSynchronously: channel)
                }
            }
        let task = Task { [self] in
            await withDiscardingTaskGroup { connections in
                try? await channel.executeThenClose { inbound in
                    for try await connection in inbound {
                        connections.addTask { await self.serve(connection) }
                    }
                }
                connections.cancelAll()
            }
        }
        state.withLock {
            $0.port = channel.channel.localAddress?.port ?? 0
            $0.channel = channel.channel
            $0.task = task
        }
    }

    /// Stops listening, closes the connections and waits for them.
    func shutdown() async {
        let (channel, task) = state.withLock { ($0.channel, $0.task) }
        try? await channel?.close()
        task?.cancel()
        await task?.value
    }

    /// Answers the requests of one connection in order (keep-alive).
    private func serve(_ connection: NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>) async {
        _ = try? await connection.executeThenClose { inbound, outbound in
            var head: HTTPRequestHead?
            for try await part in inbound {
                switch part {
                case .head(let received): head = received
                case .body: break
                case .end:
                    guard let received = head else { continue }
                    head = nil
                    try await respond(to: received, outbound: outbound)
                    if !received.isKeepAlive { return }
                }
            }
        }
    }

    private func respond(to head: HTTPRequestHead, outbound: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>) async throws {
        let path = String(head.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
        let routed = state.withLock { state -> Response? in
            state.counts[path, default: 0] += 1
            return state.routes[path]
        }
        let response = routed ?? Response(status: .notFound, body: Data("not found\n".utf8), contentType: "text/plain")
        if let gate = response.gate { await gate.wait() }
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: response.contentType)
        headers.add(name: "Content-Length", value: String(response.body.count))
        try await outbound.write(.head(HTTPResponseHead(version: head.version, status: response.status, headers: headers)))
        if head.method != .HEAD, !response.body.isEmpty {
            try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: response.body))))
        }
        try await outbound.write(.end(nil))
    }
}
