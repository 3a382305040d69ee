import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTPCompression
import Synchronization

extension ImageDownloader {
    static func timeAmount(_ seconds: Double) -> TimeAmount {
        TimeAmount.milliseconds(Int64(max(0.001, min(seconds, 86_400 * 365)) * 1000))
    }

    /// The HTTP client's settings; with `proxyPort`, every connection tunnels through the
    /// egress proxy listening there.
    static func clientConfiguration(_ configuration: ImageDownloaderConfiguration, proxyPort: Int? = nil) -> HTTPClient.Configuration {
        let timeout = timeAmount(configuration.downloadTimeout)
        let limit = Int(clamping: max(1, configuration.maximumResponseSize))
        var client = HTTPClient.Configuration(
            tlsConfiguration: configuration.tlsConfiguration,
            redirectConfiguration: .follow(max: max(0, configuration.maximumRedirects), allowCycles: false),
            timeout: HTTPClient.Configuration.Timeout(connect: timeout, read: timeout),
            connectionPool: HTTPClient.Configuration.ConnectionPool(
                idleTimeout: .seconds(60),
                concurrentHTTP1ConnectionsPerHostSoftLimit: max(1, configuration.connectionsPerHost)),
            decompression: configuration.decompression ? .enabled(limit: .size(limit)) : .disabled)
        // HTTP/2 when TLS and the server's ALPN agree on it, HTTP/1.1 otherwise (the default,
        // stated so that it stays a decision).
        client.httpVersion = .automatic
        client.connectionPool.retryConnectionEstablishment = configuration.retriesFailedConnections
        if let proxyPort {
            // AsyncHTTPClient opens every http and https connection with `CONNECT host:port`.
            // A refused CONNECT must fail the request at once, not be retried until the timeout.
            client.proxy = .server(host: "127.0.0.1", port: proxyPort)
            client.connectionPool.retryConnectionEstablishment = false
        }
        return client
    }
}
