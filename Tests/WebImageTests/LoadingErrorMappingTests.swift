import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOSSL
import Testing

@testable import WebImage

@Suite("Transport error mapping (D-6)")
struct LoadingErrorMappingTests {
    private func kind(_ error: any Error) -> TransportError.Kind? {
        if case .transport(let transport) = TransportErrorMapping.map(error) { return transport.kind }
        return nil
    }

    @Test("Given AsyncHTTPClient errors, then each maps to its transport kind")
    func clientErrors() {
        #expect(kind(HTTPClientError.readTimeout) == .timedOut)
        #expect(kind(HTTPClientError.connectTimeout) == .timedOut)
        #expect(kind(HTTPClientError.deadlineExceeded) == .timedOut)
        #expect(kind(HTTPClientError.tlsHandshakeTimeout) == .timedOut)
        #expect(kind(HTTPClientError.remoteConnectionClosed) == .connectionLost)
        #expect(kind(HTTPClientError.redirectLimitReached) == .tooManyRedirects)
        #expect(kind(HTTPClientError.redirectCycleDetected) == .tooManyRedirects)
        #expect(TransportErrorMapping.map(HTTPClientError.cancelled).code == "cancelled")
        #expect(TransportErrorMapping.map(CancellationError()).code == "cancelled")
    }

    @Test("Given socket and channel errors, then refused, reset, unreachable, DNS and EOF map to their kinds")
    func socketErrors() {
        #expect(kind(IOError(errnoCode: ECONNREFUSED, reason: "connect")) == .cannotConnectToHost)
        #expect(kind(IOError(errnoCode: ECONNRESET, reason: "read")) == .connectionLost)
        #expect(kind(IOError(errnoCode: ENETUNREACH, reason: "connect")) == .notConnected)
        #expect(kind(IOError(errnoCode: ETIMEDOUT, reason: "connect")) == .timedOut)
        #expect(kind(ChannelError.eof) == .connectionLost)
        #expect(kind(ChannelError.connectTimeout(.seconds(1))) == .timedOut)
        #expect(kind(SocketAddressError.unsupported) == .cannotFindHost)
        #expect(kind(HTTPParserError.invalidEOFState) == .connectionLost)
    }

    @Test("Given TLS errors, then host name and handshake failures are tls (permanent) and an unclean TLS close is connectionLost")
    func tlsErrors() {
        let hostname = TransportErrorMapping.map(NIOSSLExtraError.failedToValidateHostname)
        #expect(hostname.code == "transport")
        if case .transport(let error) = hostname {
            #expect(error.kind == .tls)
            #expect(error.message.contains("does not match the host"))
            #expect(!error.isTransient)
        }
        #expect(kind(NIOSSLError.handshakeFailed(.sslError([]))) == .tls)
        #expect(kind(NIOSSLError.uncleanShutdown) == .connectionLost)
    }

    @Test("Given a WebImageError, then it passes through unchanged")
    func passThrough() {
        #expect(TransportErrorMapping.map(WebImageError.responseTooLarge(limit: 5)).code == "responseTooLarge")
    }
}
