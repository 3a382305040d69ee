import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import ServiceLifecycle
import UnixSignals

/// The ready-made stand-alone image service (SPEC V-1, V-9): the image routes, `/health` and
/// `/metrics` on a Hummingbird application, run in a service group that drains gracefully on
/// SIGTERM/SIGINT.
public enum ImageServer {
    /// A Hummingbird application serving `service` on `host:port` (port 0 picks a free port);
    /// `onListening` receives the bound host and port once the server accepts connections. At
    /// most `maxClients` connections (default: the configuration's) are accepted at once.
    public static func makeApplication(
        service: ImageService,
        host: String,
        port: Int,
        logger: Logger = Logger(label: "webimage.server"),
        maxClients: Int? = nil,
        onListening: @escaping @Sendable (String, Int) async -> Void = { _, _ in }
    ) -> some ApplicationProtocol {
        let router = Router(context: ImageRequestContext.self)
        router.add(middleware: ServiceHeadersMiddleware())
        service.addOperationRoutes(to: router)
        service.addRoutes(to: router, logger: logger)
        let cap = maxClients ?? service.configuration.maxClients
        let connections = KeepAliveConnections(maxClients: cap, onShed: { [metrics = service.metrics] in metrics.recordShedConnection() })
        return Application(
            router: router,
            server: httpServer(
                idleTimeout: .milliseconds(Int64(service.configuration.keepAliveTimeout * 1000)),
                headerTimeout: .milliseconds(Int64(service.configuration.headerTimeout * 1000)),
                firstByteTimeout: .milliseconds(Int64(service.configuration.firstByteTimeout * 1000)),
                connections: connections),
            configuration: ApplicationConfiguration(
                address: .hostname(host, port: port), serverName: nil,
                availableConnectionsDelegate: MaximumAvailableConnections(cap)),
            onServerRunning: { channel in
                await onListening(host, channel.localAddress?.port ?? port)
            },
            logger: logger)
    }

    /// HTTP/1.1 with a ``ClientDisconnectHandler`` on every connection: with
    /// ``ImageRequestContext`` the image routes keep connections alive and still cancel the
    /// work of a client that goes away (SPEC V-8). `idleTimeout` closes idle connections;
    /// `headerTimeout` closes a connection whose request head is not whole that long after
    /// its first byte; `firstByteTimeout` one that sends no byte that long after it opened.
    public static func httpServer(
        idleTimeout: Duration? = nil, headerTimeout: Duration? = nil, firstByteTimeout: Duration? = nil
    ) -> HTTPServerBuilder {
        httpServer(idleTimeout: idleTimeout, headerTimeout: headerTimeout, firstByteTimeout: firstByteTimeout, connections: nil)
    }

    /// ``httpServer(idleTimeout:headerTimeout:firstByteTimeout:)`` whose connections report to
    /// `connections`, which closes the oldest idle keep-alive connection at the client cap.
    static func httpServer(
        idleTimeout: Duration?, headerTimeout: Duration?, firstByteTimeout: Duration?, connections: KeepAliveConnections?
    ) -> HTTPServerBuilder {
        let configuration = HTTP1Channel.Configuration(
            additionalChannelHandlers: [
                ClientDisconnectHandler(headerTimeout: headerTimeout, firstByteTimeout: firstByteTimeout, connections: connections)
            ],
            idleTimeout: idleTimeout.map { TimeAmount.nanoseconds(ServiceMetrics.nanoseconds($0)) })
        // Each connection's requests run on its event loop (``LoopBoundChannel``).
        return HTTPServerBuilder { responder in
            LoopBoundChannel(base: HTTP1Channel(responder: responder, configuration: configuration))
        }
    }

    /// Runs `service` until SIGTERM or SIGINT, then stops accepting, lets in-flight requests
    /// finish (within `drainTimeout` seconds) and returns.
    public static func run(
        service: ImageService,
        host: String,
        port: Int,
        drainTimeout: Double = 30,
        logger: Logger = Logger(label: "webimage.server"),
        onListening: @escaping @Sendable (String, Int) async -> Void = { _, _ in }
    ) async throws {
        // A client connection per descriptor at most, the service's own descriptors kept free.
        let descriptors = ConnectionLimit.raiseDescriptorLimit()
        let allowed = ConnectionLimit.effective(requested: service.configuration.maxClients, descriptors: descriptors)
        if allowed < service.configuration.maxClients {
            logger.warning("max-clients lowered to \(allowed): the file descriptor limit is \(descriptors ?? 0)")
        }
        let application = makeApplication(
            service: service, host: host, port: port, logger: logger, maxClients: allowed, onListening: onListening)
        var configuration = ServiceGroupConfiguration(
            services: [.init(service: DrainWatcher(service: service)), .init(service: application)],
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger)
        configuration.maximumGracefulShutdownDuration = .milliseconds(Int64(drainTimeout * 1000))
        let group = ServiceGroup(configuration: configuration)
        try await group.run()
        await service.shutdown()
    }
}
