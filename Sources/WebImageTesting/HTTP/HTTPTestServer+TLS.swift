import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOPosix
import NIOSSL

extension HTTPTestServer {
    /// The protocol a request arrived on.
    public enum ProtocolVersion: String, Sendable, Hashable {
        /// HTTP/1.1 (plain, or over TLS when ALPN chose it or offered nothing).
        case http1_1 = "HTTP/1.1"
        /// HTTP/2 over TLS (ALPN `h2`).
        case http2 = "HTTP/2"
    }

    /// How an HTTPS test server negotiates: the certificate is always generated at test time.
    public struct TLS: Sendable, Hashable {
        /// The protocols the server offers in ALPN, most preferred first.
        public enum Protocols: Sendable, Hashable {
            /// `h2` and `http/1.1`: a client offering `h2` gets HTTP/2.
            case http2AndHTTP1
            /// `http/1.1` only: every client gets HTTP/1.1.
            case http1Only
        }

        /// What ALPN offers.
        public var protocols: Protocols

        /// A TLS mode offering `protocols`.
        public init(protocols: Protocols) {
            self.protocols = protocols
        }

        /// A self-signed certificate, ALPN `h2` and `http/1.1`.
        public static let selfSigned = TLS(protocols: .http2AndHTTP1)
        /// A self-signed certificate, ALPN `http/1.1` only.
        public static let selfSignedHTTP1Only = TLS(protocols: .http1Only)

        var alpnTokens: [String] {
            switch protocols {
            case .http2AndHTTP1: ["h2", "http/1.1"]
            case .http1Only: ["http/1.1"]
            }
        }
    }

    typealias HTTPStream = NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>
    typealias NegotiatedConnection = NIONegotiatedHTTPVersion<
        HTTPStream, (any Channel, NIOHTTP2Handler.AsyncStreamMultiplexer<HTTPStream>)
    >

    /// Binds 127.0.0.1 with TLS and ALPN. An HTTP/1.1 connection is served like a plain one; an
    /// HTTP/2 connection serves every stream through `HTTP2FramePayloadToHTTP1ServerCodec`, so
    /// the same scripted routes answer both.
    func startTLS(_ tls: TLS, certificate: SelfSignedCertificate) async throws -> (any Channel, Task<Void, Never>) {
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: [.certificate(try NIOSSLCertificate(bytes: certificate.derBytes, format: .der))],
            privateKey: .privateKey(try NIOSSLPrivateKey(bytes: Array(certificate.privateKeyPEM.utf8), format: .pem)))
        configuration.applicationProtocols = tls.alpnTokens
        let context = try NIOSSLContext(configuration: configuration)

        let channel = try await ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .bind(host: "127.0.0.1", port: 0) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context))
                }.flatMap { () -> EventLoopFuture<EventLoopFuture<NegotiatedConnection>> in
                    channel.configureAsyncHTTPServerPipeline(
                        http1ConnectionInitializer: { connection in
                            connection.eventLoop.makeCompletedFuture { try HTTPStream(wrappingChannelSynchronously: connection) }
                        },
                        http2ConnectionInitializer: { connection in
                            connection.eventLoop.makeSucceededFuture(connection)
                        },
                        http2StreamInitializer: { stream in
                            stream.eventLoop.makeCompletedFuture {
                                try stream.pipeline.syncOperations.addHandler(HTTP2FramePayloadToHTTP1ServerCodec())
                                return try HTTPStream(wrappingChannelSynchronously: stream)
                            }
                        })
                }.map { negotiation in (channel, negotiation) }
            }
        let task = Task(executorPreference: LoopbackThreads.executor) { [self] in
            await withDiscardingTaskGroup { connections in
                do {
                    try await channel.executeThenClose { inbound in
                        for try await (connection, negotiation) in inbound {
                            connectionAccepted()
                            connections.addTask { await self.serveNegotiated(connection, negotiation) }
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

    /// Waits for the TLS handshake and ALPN, then serves the connection.
    private func serveNegotiated(_ channel: any Channel, _ negotiation: EventLoopFuture<NegotiatedConnection>) async {
        // A failed handshake (e.g. the client rejected the certificate) ends the connection.
        // Shutting down closes a connection still handshaking, which fails the negotiation.
        let negotiated = try? await withTaskCancellationHandler {
            try await negotiation.get()
        } onCancel: {
            channel.close(promise: nil)
        }
        guard let negotiated else { return }
        switch negotiated {
        case .http1_1(let connection):
            await serve(connection, over: .http1_1)
        case .http2(let (connection, multiplexer)):
            await withDiscardingTaskGroup { streams in
                do {
                    for try await stream in multiplexer.inbound {
                        streams.addTask { await self.serve(stream, over: .http2) }
                    }
                } catch {
                    // The connection failed or the server is shutting down.
                }
                streams.cancelAll()
            }
            try? await connection.close()
        }
    }
}
