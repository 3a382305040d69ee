import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOPosix
import NIOSSL

/// Turns AsyncHTTPClient / SwiftNIO errors into ``/WebImageCore/WebImageError`` (SPEC D-6), classifying
/// transport failures by ``/WebImageCore/TransportError/Kind`` so that the failed-URL list can tell
/// transient ones apart.
enum TransportErrorMapping {
    static func map(_ error: any Error) -> WebImageError {
        if let error = error as? WebImageError { return error }
        if error is CancellationError { return .cancelled }
        if let client = error as? HTTPClientError { return map(client) }
        if let connection = error as? NIOConnectionError {
            if connection.dnsAError != nil || connection.dnsAAAAError != nil, connection.connectionErrors.isEmpty {
                return transport(.cannotFindHost, "DNS lookup of \(connection.host) failed")
            }
            return transport(.cannotConnectToHost, "cannot connect to \(connection.host):\(connection.port)")
        }
        if let address = error as? SocketAddressError {
            return transport(.cannotFindHost, "\(address)")
        }
        if let channel = error as? ChannelError {
            switch channel {
            case .connectTimeout: return transport(.timedOut, "connect timed out")
            case .eof, .ioOnClosedChannel, .alreadyClosed, .inputClosed, .outputClosed:
                return transport(.connectionLost, "connection closed (\(channel))")
            default: return transport(.other, "\(channel)")
            }
        }
        if let io = error as? IOError {
            return map(errno: io.errnoCode, message: "\(String(cString: strerror(io.errnoCode))) (errno \(io.errnoCode))")
        }
        if let tls = tlsFailure(error) { return tls }
        if let stream = error as? NIOHTTP2Errors.StreamClosed {
            return transport(.connectionLost, "HTTP/2 stream reset by the peer (\(stream.errorCode))")
        }
        if error is NIOHTTP2Errors.ContentLengthViolated {
            return transport(.connectionLost, "HTTP/2 body did not match its Content-Length")
        }
        if error is HTTPParserError {
            return transport(.connectionLost, "malformed or truncated HTTP response: \(error)")
        }
        return transport(.other, "\(error)")
    }

    /// A failure of a transfer whose request URL was already accepted: URL errors can then only
    /// come from a redirect's `Location`, which is the server's fault, not the caller's
    /// (`invalidDownloadResponse`, not `invalidURL`).
    static func mapTransferFailure(_ error: any Error) -> any Error {
        if let client = error as? HTTPClientError, client == .invalidURL || client == .emptyHost || client == .emptyScheme {
            return WebImageError.invalidDownloadResponse(reason: "the server redirected to an invalid URL (\(client))")
        }
        return error
    }

    /// TLS failures. Certificate and host name failures say so in the message; a TLS connection
    /// closed without `close_notify` is a truncation (`connectionLost`), not a TLS failure.
    private static func tlsFailure(_ error: any Error) -> WebImageError? {
        if let extra = error as? NIOSSLExtraError, extra == .failedToValidateHostname {
            return transport(.tls, "certificate does not match the host: \(extra)")
        }
        if let ssl = error as? NIOSSLError, case .uncleanShutdown = ssl {
            return transport(.connectionLost, "TLS connection closed without close_notify")
        }
        guard error is NIOSSLError || error is BoringSSLError || error is NIOSSLExtraError else { return nil }
        // BoringSSL reports a rejected chain (untrusted root, expired, wrong usage) only as this
        // reason string inside its error queue.
        if "\(error)".contains("CERTIFICATE_VERIFY_FAILED") {
            return transport(.tls, "certificate verification failed (untrusted or invalid server certificate): \(error)")
        }
        return transport(.tls, "\(error)")
    }

    private static func map(_ error: HTTPClientError) -> WebImageError {
        switch error {
        case .cancelled, .requestStreamCancelled: return .cancelled
        case .readTimeout, .writeTimeout, .connectTimeout, .deadlineExceeded, .tlsHandshakeTimeout,
            .getConnectionFromPoolTimeout, .socksHandshakeTimeout, .httpProxyHandshakeTimeout:
            return transport(.timedOut, "\(error)")
        case .remoteConnectionClosed, .bodyLengthMismatch, .uncleanShutdown:
            return transport(.connectionLost, "\(error)")
        case .redirectLimitReached, .redirectCycleDetected:
            return transport(.tooManyRedirects, "\(error)")
        case .invalidURL, .emptyHost, .emptyScheme:
            return .invalidURL("\(error)")
        case .alreadyShutdown:
            return .invalidDownloadOperation(reason: "the downloader has been shut down")
        default:
            return transport(.other, "\(error)")
        }
    }

    private static func map(errno code: Int32, message: String) -> WebImageError {
        switch code {
        case ECONNREFUSED: transport(.cannotConnectToHost, message)
        case ECONNRESET, EPIPE, ECONNABORTED: transport(.connectionLost, message)
        case ETIMEDOUT: transport(.timedOut, message)
        case ENETUNREACH, EHOSTUNREACH, ENETDOWN: transport(.notConnected, message)
        default: transport(.other, message)
        }
    }

    private static func transport(_ kind: TransportError.Kind, _ message: String) -> WebImageError {
        .transport(TransportError(kind, message))
    }
}
