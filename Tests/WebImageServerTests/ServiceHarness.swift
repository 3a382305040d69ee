import AsyncHTTPClient
import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOHTTP1
import WebImage
import WebImageServer
import WebImageTesting

/// A running image service on 127.0.0.1 (free port) with a loopback origin, and a real HTTP
/// client. The service allows loopback sources explicitly (the default refuses them).
final class ServiceHarness: Sendable {
    let origin: HTTPTestServer
    let service: ImageService
    let baseURL: String
    let client: HTTPClient
    private let task: Task<Void, any Error>

    struct Reply: Sendable {
        var status: Int
        var headers: HTTPHeaders
        var body: Data
        func header(_ name: String) -> String? { headers.first(name: name) }
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    static func start(
        allowLoopback: Bool = true, _ configure: (inout ImageServiceConfiguration) -> Void = { _ in },
        now: @escaping @Sendable () -> Date = Date.init
    ) async throws -> ServiceHarness {
        let origin = HTTPTestServer()
        try await origin.start()
        var configuration = ImageServiceConfiguration()
        if allowLoopback { configuration.addressPolicy.deniedClasses.remove(.loopback) }
        configuration.autoAVIF = false
        // Deadlines a loaded machine never reaches, unless a test is about one (it sets its own).
        configuration.downloadTimeout = 60
        configuration.processingTimeout = 120
        configure(&configuration)
        let service = ImageService(configuration: configuration, now: now)
        let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
        // Quiet: cancelling the server task at the end of a test logs at error level.
        let logger = Logger(label: "test.webimage.server") { _ in SwiftLogNoOpLogHandler() }
        let application = ImageServer.makeApplication(service: service, host: "127.0.0.1", port: 0, logger: logger) { _, port in
            continuation.yield(port)
        }
        let task = Task { try await application.runService() }
        var port = 0
        for await bound in stream { port = bound; break }
        return ServiceHarness(origin: origin, service: service, port: port, task: task)
    }

    private init(origin: HTTPTestServer, service: ImageService, port: Int, task: Task<Void, any Error>) {
        self.origin = origin
        self.service = service
        self.baseURL = "http://127.0.0.1:\(port)"
        // Requests that wait for one of the client's connections count against its connect
        // timeout (10 s by default), which a starved machine can exceed while a test's 64
        // concurrent requests queue behind 8 connections: allow every test request a connection
        // of its own (they then also reach the service at once, as the tests mean) and a
        // generous timeout.
        var configuration = HTTPClient.Configuration()
        configuration.timeout.connect = .seconds(60)
        configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: 128)
        self.client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        self.task = task
    }

    /// `/insecure/{options}/plain/{origin URL of path}[@ext]`.
    func plainPath(_ originPath: String, options: String = "", ext: String? = nil, signature: String = "insecure") -> String {
        let optionPart = options.isEmpty ? "" : "/" + options
        return "/\(signature)\(optionPart)/plain/\(origin.url(originPath).absoluteString)" + (ext.map { "@" + $0 } ?? "")
    }

    func get(_ path: String, method: HTTPMethod = .GET, headers: [(String, String)] = []) async throws -> Reply {
        var request = HTTPClientRequest(url: baseURL + path)
        request.method = method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        // A hang guard only: a 12 MP HEIC with its gain map, rendered by a debug build on a
        // starved machine, has taken over a minute.
        let response = try await client.execute(request, timeout: .seconds(300))
        let body = try await response.body.collect(upTo: 64 * 1024 * 1024)
        return Reply(status: Int(response.status.code), headers: response.headers, body: Data(body.readableBytesView))
    }

    func stop() async {
        try? await client.shutdown()
        task.cancel()
        _ = try? await task.value
        await service.shutdown()
        await origin.shutdown()
    }
}

/// Test images made by the library's own encoders.
enum TestImages {
    /// A `width`×`height` image: red rises left to right, green top to bottom, blue 64.
    static func gradient(width: Int, height: Int) -> Image {
        let pixels = PixelBuffer.make(width: width, height: height) { out in
            for y in 0..<height {
                for x in 0..<width {
                    let index = (y * width + x) * 4
                    out[index] = UInt8(x * 255 / max(1, width - 1))
                    out[index + 1] = UInt8(y * 255 / max(1, height - 1))
                    out[index + 2] = 64
                    out[index + 3] = 255
                }
            }
        }
        return Image(pixels: pixels, hasAlpha: false)
    }

    static func png(width: Int, height: Int) throws -> Data {
        try CodersManager.shared.encode(gradient(width: width, height: height), format: .png, options: EncodeOptions())
    }

    /// An animated GIF of `frames` solid frames, each `delay` seconds.
    static func animatedGIF(frames: Int, width: Int = 40, height: Int = 30, delay: Double = 0.1) throws -> Data {
        let list = (0..<frames).map { index in
            let shade = UInt8(index * 255 / max(1, frames - 1))
            let pixels = PixelBuffer.make(width: width, height: height) { out in
                for i in stride(from: 0, to: out.count, by: 4) {
                    out[i] = shade; out[i + 1] = 255 - shade; out[i + 2] = 0; out[i + 3] = 255
                }
            }
            return ImageFrame(pixels: pixels, duration: delay)
        }
        return try CodersManager.shared.encode(Image(frames: list, loopCount: 0, hasAlpha: false), format: .gif, options: EncodeOptions())
    }

    static func decode(_ data: Data) throws -> Image {
        try CodersManager.shared.decode(data, options: DecodeOptions())
    }
}
