import AsyncHTTPClient
import Foundation
import Hummingbird
import NIOCore
import NIOHTTP1
import Testing
import WebImage
import WebImageServer
import WebImageTesting

@Suite(.timeLimit(.minutes(2))) struct MountingTests {
    /// The routes mount under a group of the user's own router beside the user's routes.
    @Test func routesMountInAUsersRouterGroup() async throws {
        let origin = HTTPTestServer()
        try await origin.start()
        defer { Task { await origin.shutdown() } }
        origin.route("/src.png", .ok(try TestImages.png(width: 30, height: 10), contentType: "image/png"))
        var configuration = ImageServiceConfiguration()
        configuration.addressPolicy.deniedClasses.remove(.loopback)
        let service = ImageService(configuration: configuration)
        let router = Router()
        router.get("hello") { _, _ in "user route" }
        service.addRoutes(to: router.group("images"))
        let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
        let application = Application(
            router: router, configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in continuation.yield(channel.localAddress?.port ?? 0) })
        let task = Task { try await application.runService() }
        defer { task.cancel() }
        var port = 0
        for await bound in stream { port = bound; break }
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        let base = "http://127.0.0.1:\(port)"
        let image = try await client.execute(
            HTTPClientRequest(url: "\(base)/images/insecure/w:15/plain/\(origin.url("/src.png").absoluteString)@png"), timeout: .seconds(60))
        #expect(image.status.code == 200)
        #expect(image.headers.first(name: "Connection") == "close", "a context without a channel: the route watches the request stream")
        let body = try await image.body.collect(upTo: 1 << 20)
        #expect(try TestImages.decode(Data(body.readableBytesView)).pixelSize == PixelSize(width: 15, height: 5))
        let hello = try await client.execute(HTTPClientRequest(url: "\(base)/hello"), timeout: .seconds(60))
        #expect(String(buffer: try await hello.body.collect(upTo: 1024)) == "user route")
        try await client.shutdown()
        await service.shutdown()
    }

    /// Mounted with ``ImageRequestContext`` on ``ImageServer/httpServer(idleTimeout:)``, the
    /// user's application keeps connections alive on image routes too.
    @Test func aUsersApplicationWithTheImageContextKeepsConnectionsAlive() async throws {
        let origin = HTTPTestServer()
        try await origin.start()
        defer { Task { await origin.shutdown() } }
        origin.route("/src.png", .ok(try TestImages.png(width: 30, height: 10), contentType: "image/png"))
        var configuration = ImageServiceConfiguration()
        configuration.addressPolicy.deniedClasses.remove(.loopback)
        let service = ImageService(configuration: configuration)
        let router = Router(context: ImageRequestContext.self)
        service.addRoutes(to: router.group("images"))
        let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
        let application = Application(
            router: router, server: ImageServer.httpServer(),
            configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in continuation.yield(channel.localAddress?.port ?? 0) })
        let task = Task { try await application.runService() }
        defer { task.cancel() }
        var port = 0
        for await bound in stream { port = bound; break }
        let connection = try KeepAliveClient(port: port)
        for width in [15, 10] {
            let answer = try await connection.exchange(
                "GET /images/insecure/w:\(width)/plain/\(origin.url("/src.png").absoluteString)@png HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            #expect(answer.status == 200, "\(answer.head)")
            #expect(answer.header("connection")?.lowercased() != "close")
            #expect(try TestImages.decode(answer.body).pixelSize.width == width)
        }
        await service.shutdown()
    }
}
