import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Testing
import WebImageCodecs
import WebImageCore
import WebImageTesting

/// `webimage serve --watermark-path FILE --watermark-opacity O` as a user runs it: the flag's
/// watermark on the results of `wm` URLs, over loopback HTTP.
@Suite(.timeLimit(.minutes(2))) struct ServeWatermarkCommandTests {
    private static func solidPNG(width: Int, height: Int, _ rgb: (UInt8, UInt8, UInt8)) throws -> Data {
        let pixels = PixelBuffer.make(width: width, height: height) { out in
            for index in stride(from: 0, to: out.count, by: 4) {
                out[index] = rgb.0; out[index + 1] = rgb.1; out[index + 2] = rgb.2; out[index + 3] = 255
            }
        }
        return try CodersManager.shared.encode(Image(pixels: pixels, hasAlpha: false), format: .png, options: EncodeOptions())
    }

    @Test("Given serve --watermark-path and --watermark-opacity, then wm puts that image on the result at that opacity")
    func watermarkFlags() async throws {
        let origin = HTTPTestServer()
        try await origin.start()
        defer { Task { await origin.shutdown() } }
        origin.route("/src.png", .ok(try Self.solidPNG(width: 64, height: 48, (128, 128, 128)), contentType: "image/png"))
        let mark = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-serve-mark-\(UUID().uuidString).png")
        try Self.solidPNG(width: 10, height: 6, (0, 0, 255)).write(to: mark)
        defer { try? FileManager.default.removeItem(at: mark) }

        let serve = try await ServeProcess.start(["--watermark-path", mark.path, "--watermark-opacity", "0.5", "--workers", "1"])
        defer { Task { await serve.stop() } }
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        defer { Task { try? await client.shutdown() } }
        let url = "\(serve.base)/insecure/wm:1:nowe/plain/\(origin.url("/src.png").absoluteString)@png"
        let response = try await client.execute(HTTPClientRequest(url: url), timeout: .seconds(120))
        #expect(response.status.code == 200)
        let body = try await response.body.collect(upTo: 16 * 1024 * 1024)
        let image = try CodersManager.shared.decode(Data(body.readableBytesView), options: DecodeOptions())
        let marked = image.pixels.pixel(x: 2, y: 2), plain = image.pixels.pixel(x: 30, y: 30)
        // Half of the blue over the grey.
        #expect(abs(Int(marked.b) - 192) <= 2 && abs(Int(marked.r) - 64) <= 2, "\(marked)")
        #expect(plain == RGBA(r: 128, g: 128, b: 128), "\(plain)")
    }
}
