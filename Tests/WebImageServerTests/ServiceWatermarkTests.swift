import Foundation
import Testing
import WebImage
import WebImageTesting

@testable import WebImageServer

/// `watermark` (`wm`) over loopback HTTP: a 10×6 opaque blue watermark on a 64×48 grey source,
/// at every position, with offsets (scaled by dpr), fractions, scale, opacity, tiled, on every
/// frame of an animation, from data and from a URL (fetched once, refreshed after the TTL).
@Suite(.serialized, .timeLimit(.minutes(3))) struct ServiceWatermarkTests {
    static let blue = RGBA(r: 0, g: 0, b: 255)
    static let grey = RGBA(r: 128, g: 128, b: 128)

    static func solidPNG(width: Int, height: Int, _ color: RGBA) throws -> Data {
        let pixels = PixelBuffer.make(width: width, height: height) { out in
            for index in stride(from: 0, to: out.count, by: 4) {
                out[index] = color.r; out[index + 1] = color.g; out[index + 2] = color.b; out[index + 3] = color.a
            }
        }
        return try CodersManager.shared.encode(Image(pixels: pixels, hasAlpha: color.a < 255), format: .png, options: EncodeOptions())
    }

    static func start(_ configure: (inout ImageServiceConfiguration) -> Void = { _ in }) async throws -> ServiceHarness {
        let mark = try solidPNG(width: 10, height: 6, blue)
        let harness = try await ServiceHarness.start { configuration in
            configuration.watermark = .data(mark)
            configure(&configuration)
        }
        harness.origin.route("/src.png", .ok(try solidPNG(width: 64, height: 48, grey), contentType: "image/png"))
        return harness
    }

    private func served(_ harness: ServiceHarness, _ options: String, path: String = "/src.png", ext: String = "png") async throws -> Image {
        let reply = try await harness.get(harness.plainPath(path, options: options, ext: ext))
        #expect(reply.status == 200, "\(options): \(reply.text)")
        return try TestImages.decode(reply.body)
    }

    /// Whether `image` is blue exactly inside `rect` (clipped) and grey elsewhere.
    private func expectMark(_ image: Image, at rect: PixelRect, _ label: String, sourceLocation: SourceLocation = #_sourceLocation) {
        var wrong: [(Int, Int)] = []
        for y in 0..<image.height {
            for x in 0..<image.width {
                let inside = x >= rect.x && x < rect.x + rect.width && y >= rect.y && y < rect.y + rect.height
                if image.pixels.pixel(x: x, y: y) != (inside ? Self.blue : Self.grey) { wrong.append((x, y)) }
            }
        }
        #expect(wrong.isEmpty, "\(label): \(wrong.count) pixels wrong, first \(wrong.prefix(3))", sourceLocation: sourceLocation)
    }

    @Test("Given each position, when watermarked, then the watermark sits at imgproxy's place for it")
    func positions() async throws {
        let harness = try await Self.start()
        defer { Task { await harness.stop() } }
        // Centred: round-half-even((64 − 10 + 1) / 2) = 28 across, ((48 − 6 + 1) / 2) = 22 down.
        for (options, x, y) in [
            ("wm:1", 28, 22), ("wm:1:ce", 28, 22), ("watermark:1:no", 28, 0), ("wm:1:so", 28, 42), ("wm:1:ea", 54, 22),
            ("wm:1:we", 0, 22), ("wm:1:noea", 54, 0), ("wm:1:nowe", 0, 0), ("wm:1:soea", 54, 42), ("wm:1:sowe", 0, 42),
        ] {
            expectMark(try await served(harness, options), at: PixelRect(x: x, y: y, width: 10, height: 6), options)
        }
    }

    @Test("Given offsets, then pixels move the watermark inwards from its edge, fractions are of the result, and dpr scales pixels")
    func offsets() async throws {
        let harness = try await Self.start()
        defer { Task { await harness.stop() } }
        for (options, x, y) in [
            ("wm:1:soea:5:3", 64 - 10 - 5, 48 - 6 - 3), ("wm:1:nowe:5:3", 5, 3), ("wm:1:ce:4:-2", 32, 20),
            ("wm:1:nowe:0.25:0.5", 16, 24),
            // w:32 at dpr 2 is the whole source: pixel offsets double, fractions stay fractions.
            ("w:32/dpr:2/wm:1:nowe:5:3", 10, 6), ("w:32/dpr:2/wm:1:nowe:0.25:0.5", 16, 24),
        ] {
            expectMark(try await served(harness, options), at: PixelRect(x: x, y: y, width: 10, height: 6), options)
        }
    }

    @Test("Given a scale, then the watermark fits inside that part of the result, keeping its aspect ratio")
    func scale() async throws {
        let harness = try await Self.start()
        defer { Task { await harness.stop() } }
        // Inside 32×24: 10×6 × 3.2 = 32×19.2 → 32×19.
        expectMark(try await served(harness, "wm:1:nowe:0:0:0.5"), at: PixelRect(x: 0, y: 0, width: 32, height: 19), "scale 0.5")
        // Inside 16×12 of the 32×24 result (w:32): 16×9.6 → 16×10, in the south-east corner.
        expectMark(try await served(harness, "w:32/wm:1:soea:0:0:0.5"), at: PixelRect(x: 16, y: 14, width: 16, height: 10), "w:32 scale 0.5")
    }

    @Test("Given an opacity and the service's base opacity, then the watermark is blended by their product")
    func opacity() async throws {
        let harness = try await Self.start()
        defer { Task { await harness.stop() } }
        let half = try await served(harness, "wm:0.5")
        let pixel = half.pixels.pixel(x: 30, y: 24)
        #expect(abs(Int(pixel.r) - 64) <= 2 && abs(Int(pixel.b) - 192) <= 2 && pixel.a == 255, "\(pixel)")
        #expect(half.pixels.pixel(x: 0, y: 0) == Self.grey)
        // Opacity 0 is no watermark: the same answer as without the option.
        let plain = try await harness.get(harness.plainPath("/src.png", ext: "png"))
        let none = try await harness.get(harness.plainPath("/src.png", options: "wm:0", ext: "png"))
        #expect(none.header("ETag") == plain.header("ETag"))

        let based = try await Self.start { $0.watermarkOpacity = 0.5 }
        defer { Task { await based.stop() } }
        let quarter = try await served(based, "wm:0.5").pixels.pixel(x: 30, y: 24)
        #expect(abs(Int(quarter.r) - 96) <= 2 && abs(Int(quarter.b) - 160) <= 2, "\(quarter)")
    }

    @Test("Given re, then the watermark is tiled over the result, the offsets being the gaps, the grid centred")
    func tiled() async throws {
        let harness = try await Self.start()
        defer { Task { await harness.stop() } }
        // No gaps: every pixel is covered.
        let covered = try await served(harness, "wm:1:re")
        #expect((0..<48).allSatisfy { y in (0..<64).allSatisfy { covered.pixels.pixel(x: $0, y: y) == Self.blue } })
        // Gaps 10 × 6: tiles 20 × 12, 5 × 5 of them centred, the first watermark at (−13, −3).
        let gapped = try await served(harness, "wm:1:re:10:6")
        var wrong = 0
        for y in 0..<48 {
            for x in 0..<64 {
                let inside = (x + 13) % 20 < 10 && (y + 3) % 12 < 6
                if gapped.pixels.pixel(x: x, y: y) != (inside ? Self.blue : Self.grey) { wrong += 1 }
            }
        }
        #expect(wrong == 0)
        #expect(gapped.pixels.pixel(x: 7, y: 9) == Self.blue && gapped.pixels.pixel(x: 17, y: 9) == Self.grey)
    }

    @Test("Given an animated GIF, when watermarked, then every frame has the watermark")
    func animated() async throws {
        let harness = try await Self.start()
        defer { Task { await harness.stop() } }
        harness.origin.route("/anim.gif", .ok(try TestImages.animatedGIF(frames: 4), contentType: "image/gif"))
        let image = try await served(harness, "wm:1:nowe", path: "/anim.gif", ext: "gif")
        #expect(image.frames.count == 4)
        #expect(image.pixelSize == PixelSize(width: 40, height: 30))
        var shades: Set<UInt8> = []
        for frame in image.frames {
            let mark = frame.pixels.pixel(x: 4, y: 3), outside = frame.pixels.pixel(x: 20, y: 20)
            #expect(mark.b > 230 && mark.r < 25 && mark.g < 25, "\(mark)")
            #expect(outside.b < 25, "\(outside)")
            shades.insert(outside.r)
        }
        // The frames themselves are kept (each its own shade).
        #expect(shades.count == 4)
    }

    @Test("Given no watermark configured, when wm is asked for, then it is ignored, as imgproxy does")
    func notConfigured() async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        harness.origin.route("/src.png", .ok(try Self.solidPNG(width: 64, height: 48, Self.grey), contentType: "image/png"))
        let image = try await served(harness, "wm:1:nowe")
        expectMark(image, at: PixelRect(x: 0, y: 0, width: 0, height: 0), "no watermark configured")
    }

    @Test("Given a watermark URL, then it is fetched once for many requests, under the source policy, and again after its TTL")
    func fromURL() async throws {
        let marks = HTTPTestServer()
        try await marks.start()
        defer { Task { await marks.shutdown() } }
        marks.route("/mark.png", .ok(try Self.solidPNG(width: 10, height: 6, Self.blue), contentType: "image/png"))
        let url = marks.url("/mark.png").absoluteString
        let harness = try await Self.start { $0.watermark = .url(url) }
        defer { Task { await harness.stop() } }
        for options in ["wm:1:nowe", "wm:1:soea", "wm:1:ce"] { _ = try await served(harness, options) }
        expectMark(try await served(harness, "wm:1:noea"), at: PixelRect(x: 54, y: 0, width: 10, height: 6), "from URL")
        #expect(marks.requestCount("/mark.png") == 1)

        // A TTL of a millisecond: each later request fetches it again and uses the new image.
        let refreshing = try await Self.start {
            $0.watermark = .url(url)
            $0.watermarkURLTTL = 0.001
        }
        defer { Task { await refreshing.stop() } }
        _ = try await served(refreshing, "wm:1:nowe")
        let before = marks.requestCount("/mark.png")
        marks.route("/mark.png", .ok(try Self.solidPNG(width: 10, height: 6, RGBA(r: 255, g: 0, b: 0)), contentType: "image/png"))
        try await Task.sleep(for: .milliseconds(20))
        let red = try await served(refreshing, "wm:1:nowe")
        #expect(red.pixels.pixel(x: 0, y: 0) == RGBA(r: 255, g: 0, b: 0))
        #expect(marks.requestCount("/mark.png") == before + 1)
        // A refresh that fails keeps the watermark it had.
        marks.route("/mark.png", .status(500))
        try await Task.sleep(for: .milliseconds(20))
        let kept = try await served(refreshing, "wm:1:sowe")
        #expect(kept.pixels.pixel(x: 0, y: 47) == RGBA(r: 255, g: 0, b: 0))
        #expect(marks.requestCount("/mark.png") == before + 2)

        // A watermark URL the source policy refuses fails the request, in words.
        let refused = try await Self.start { $0.watermark = .url("local://mark.png") }
        defer { Task { await refused.stop() } }
        let reply = try await refused.get(refused.plainPath("/src.png", options: "wm:1", ext: "png"))
        #expect(reply.status == 502)
        #expect(reply.text.contains("watermark"), "\(reply.text)")
        // Without the option the watermark is never fetched.
        #expect(try await refused.get(refused.plainPath("/src.png", ext: "png")).status == 200)
    }

    @Test("Given bad watermark arguments, then 400 names the option")
    func badArguments() async throws {
        let harness = try await Self.start()
        defer { Task { await harness.stop() } }
        for (options, name) in [
            ("wm:2", "wm"), ("wm:-0.5", "wm"), ("wm:abc", "wm"), ("watermark:1:xx", "watermark"), ("wm:1:sm", "wm"), ("wm:1:ce:a", "wm"),
            ("wm:1:ce:0:b", "wm"), ("wm:1:ce:0:0:-1", "wm"), ("wm:1:ce:0:0:11", "wm"), ("wm:1:ce:0:0:0:0", "wm"), ("wm:", "wm"),
        ] {
            let reply = try await harness.get(harness.plainPath("/src.png", options: options, ext: "png"))
            #expect(reply.status == 400, "\(options)")
            #expect(reply.text.contains("bad option \(name)"), "\(options): \(reply.text)")
        }
    }

    @Test("Given a watermark scaled past the processing memory, then 400 names the watermark option")
    func scaledPastTheLimits() async throws {
        let harness = try await Self.start { $0.limits.maxProcessingBytes = 1_000_000 }
        defer { Task { await harness.stop() } }
        // Scale 10 on 64×48: a 640×384 watermark, about 2 MB with its resample.
        let refused = try await harness.get(harness.plainPath("/src.png", options: "wm:1:ce:0:0:10", ext: "png"))
        #expect(refused.status == 400)
        #expect(refused.text.contains("bad option watermark") && refused.text.contains("max-processing-memory"), "\(refused.text)")
        #expect(try await harness.get(harness.plainPath("/src.png", options: "wm:1:ce:0:0:1", ext: "png")).status == 200)
    }
}
