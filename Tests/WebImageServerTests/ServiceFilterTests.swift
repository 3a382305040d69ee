import Foundation
import Testing
import WebImage
import WebImageServer
import WebImageTesting

@Suite(.timeLimit(.minutes(2))) struct ServiceFilterTests {
    static func encode(_ width: Int, _ height: Int, _ pixel: @escaping (Int, Int) -> [UInt8]) throws -> Data {
        let pixels = PixelBuffer.make(width: width, height: height) { out in
            for y in 0..<height {
                for x in 0..<width {
                    let value = pixel(x, y)
                    for channel in 0..<4 { out[(y * width + x) * 4 + channel] = value[channel] }
                }
            }
        }
        return try CodersManager.shared.encode(Image(pixels: pixels), format: .png, options: EncodeOptions())
    }

    @Test func rawAndSkipProcessingReturnTheSourceBytes() async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        let png = try TestImages.png(width: 20, height: 10)
        harness.origin.route("/src.png", .ok(png, contentType: "image/png"))
        #expect(try await harness.get(harness.plainPath("/src.png", options: "raw:1/w:5")).body == png)
        #expect(try await harness.get(harness.plainPath("/src.png", options: "skp:png/w:5", ext: "png")).body == png)
        #expect(try await harness.get(harness.plainPath("/src.png", options: "skp:png/w:5", ext: "webp")).body != png)
        #expect(harness.service.decodeCount == 1)
    }

    @Test func backgroundTrimBlurSharpenAndMaxBytes() async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        // Transparent left half, opaque blue right half.
        harness.origin.route("/alpha.png", .ok(try Self.encode(8, 8) { x, _ in x < 4 ? [0, 0, 0, 0] : [0, 0, 255, 255] }, contentType: "image/png"))
        let flattened = try TestImages.decode(try await harness.get(harness.plainPath("/alpha.png", options: "bg:ff0000", ext: "png")).body)
        #expect(flattened.pixels.pixel(x: 1, y: 1) == RGBA(r: 255, g: 0, b: 0, a: 255))
        #expect(flattened.pixels.pixel(x: 6, y: 1) == RGBA(r: 0, g: 0, b: 255, a: 255))

        // A 10-pixel white border around a black 20x10 block.
        harness.origin.route("/framed.png", .ok(try Self.encode(40, 30) { x, y in
            (10..<30).contains(x) && (10..<20).contains(y) ? [0, 0, 0, 255] : [255, 255, 255, 255]
        }, contentType: "image/png"))
        let trimmed = try TestImages.decode(try await harness.get(harness.plainPath("/framed.png", options: "t:10", ext: "png")).body)
        #expect(trimmed.pixelSize == PixelSize(width: 20, height: 10))

        // Vertical black/white edge: blur softens it, sharpen overshoots it.
        harness.origin.route("/edge.png", .ok(try Self.encode(20, 4) { x, _ in x < 10 ? [60, 60, 60, 255] : [190, 190, 190, 255] }, contentType: "image/png"))
        let blurred = try TestImages.decode(try await harness.get(harness.plainPath("/edge.png", options: "bl:2", ext: "png")).body)
        #expect(blurred.pixels.pixel(x: 9, y: 2).r > 80 && blurred.pixels.pixel(x: 10, y: 2).r < 170)
        let sharpened = try TestImages.decode(try await harness.get(harness.plainPath("/edge.png", options: "sh:1", ext: "png")).body)
        #expect(sharpened.pixels.pixel(x: 9, y: 2).r < 60 && sharpened.pixels.pixel(x: 10, y: 2).r > 190)

        // Noise compresses badly: max_bytes must make the JPEG smaller than at quality 100.
        var seed: UInt32 = 7
        harness.origin.route("/noise.png", .ok(try Self.encode(128, 128) { _, _ in
            seed = seed &* 1_103_515_245 &+ 12345
            let v = UInt8(truncatingIfNeeded: seed >> 16)
            return [v, v &+ 40, v &+ 90, 255]
        }, contentType: "image/png"))
        let full = try await harness.get(harness.plainPath("/noise.png", options: "q:100", ext: "jpg"))
        let limited = try await harness.get(harness.plainPath("/noise.png", options: "q:100/mb:6000", ext: "jpg"))
        #expect(limited.status == 200 && full.body.count > 6000)
        #expect(limited.body.count <= 6000, "\(limited.body.count) bytes")
    }
}
