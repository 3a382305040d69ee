import Foundation
import Testing
import WebImage
import WebImageServer
import WebImageTesting

/// `adjust`, `brightness`, `contrast`, `saturation`, `monochrome`, `duotone`, `colorize` and
/// `gradient` over loopback HTTP, on solid colours whose results follow from the documented
/// formulas, and their hostile values.
@Suite(.timeLimit(.minutes(3))) struct ServiceColorFilterTests {
    /// A 16×16 PNG of one colour.
    static func solid(_ color: RGBA, size: Int = 16) throws -> Data {
        let pixels = PixelBuffer.make(width: size, height: size) { out in
            for i in stride(from: 0, to: out.count, by: 4) {
                out[i] = color.r; out[i + 1] = color.g; out[i + 2] = color.b; out[i + 3] = color.a
            }
        }
        return try CodersManager.shared.encode(Image(pixels: pixels, hasAlpha: color.a != 255), format: .png, options: EncodeOptions())
    }

    private static func close(_ a: RGBA, _ b: RGBA, within tolerance: Int = 1) -> Bool {
        abs(Int(a.r) - Int(b.r)) <= tolerance && abs(Int(a.g) - Int(b.g)) <= tolerance
            && abs(Int(a.b) - Int(b.b)) <= tolerance && abs(Int(a.a) - Int(b.a)) <= tolerance
    }

    private func render(_ harness: ServiceHarness, _ path: String, _ options: String) async throws -> Image? {
        let reply = try await harness.get(harness.plainPath(path, options: options, ext: "png"))
        #expect(reply.status == 200, "\(options): \(reply.text)")
        guard reply.status == 200 else { return nil }
        return try TestImages.decode(reply.body)
    }

    @Test("Given brightness, contrast, saturation or adjust, then each channel follows the documented arithmetic")
    func adjustments() async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        harness.origin.route("/grey.png", .ok(try Self.solid(RGBA(r: 100, g: 100, b: 100)), contentType: "image/png"))
        harness.origin.route("/color.png", .ok(try Self.solid(RGBA(r: 200, g: 100, b: 50)), contentType: "image/png"))
        let cases: [(String, String, RGBA)] = [
            ("/grey.png", "br:50", RGBA(r: 150, g: 150, b: 150)),
            ("/grey.png", "brightness:-255", RGBA(r: 0, g: 0, b: 0)),
            ("/grey.png", "co:2", RGBA(r: 72, g: 72, b: 72)),
            ("/grey.png", "contrast:1", RGBA(r: 100, g: 100, b: 100)),
            // imgproxy's examples: 0.5 halves the contrast, 1.5 raises it by half (distance from 128: 28 → 14, 42).
            ("/grey.png", "co:0.5", RGBA(r: 114, g: 114, b: 114)),
            ("/grey.png", "co:1.5", RGBA(r: 86, g: 86, b: 86)),
            ("/grey.png", "br:-50", RGBA(r: 50, g: 50, b: 50)),
            ("/grey.png", "a:10", RGBA(r: 110, g: 110, b: 110)),
            ("/grey.png", "adjust::2", RGBA(r: 72, g: 72, b: 72)),
            // Luma of (200, 100, 50): 0.299·200 + 0.587·100 + 0.114·50 = 124.2.
            ("/color.png", "sa:0", RGBA(r: 124, g: 124, b: 124)),
            ("/color.png", "saturation:2", RGBA(r: 255, g: 76, b: 0)),
            ("/color.png", "adjust:0:1:0", RGBA(r: 124, g: 124, b: 124)),
            ("/color.png", "sa:1", RGBA(r: 200, g: 100, b: 50)),
        ]
        for (path, options, expected) in cases {
            guard let image = try await render(harness, path, options) else { continue }
            let pixel = image.pixels.pixel(x: 8, y: 8)
            #expect(Self.close(pixel, expected), "\(options): \(pixel), expected \(expected)")
        }
    }

    @Test("Given monochrome or duotone, then the pixel's lightness picks the palette colour, mixed by the intensity")
    func palettes() async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        harness.origin.route("/color.png", .ok(try Self.solid(RGBA(r: 200, g: 100, b: 50)), contentType: "image/png"))
        harness.origin.route("/black.png", .ok(try Self.solid(RGBA(r: 0, g: 0, b: 0)), contentType: "image/png"))
        harness.origin.route("/white.png", .ok(try Self.solid(RGBA(r: 255, g: 255, b: 255)), contentType: "image/png"))
        // Lightness 124.2/255 = 0.487 < 0.5: the base colour times 0.974.
        let cases: [(String, String, RGBA)] = [
            ("/color.png", "mc:1", RGBA(r: 174, g: 174, b: 174)),
            ("/color.png", "monochrome:1:ff0000", RGBA(r: 248, g: 0, b: 0)),
            ("/color.png", "mc:0.5:ff0000", RGBA(r: 224, g: 50, b: 25)),
            ("/color.png", "mc:0", RGBA(r: 200, g: 100, b: 50)),
            ("/white.png", "mc:1:ff0000", RGBA(r: 255, g: 255, b: 255)),
            ("/color.png", "dt:1", RGBA(r: 124, g: 124, b: 124)),
            ("/black.png", "duotone:1:ff0000:0000ff", RGBA(r: 255, g: 0, b: 0)),
            ("/white.png", "dt:1:ff0000:0000ff", RGBA(r: 0, g: 0, b: 255)),
            ("/white.png", "dt:0.25:000:", RGBA(r: 255, g: 255, b: 255)),
        ]
        for (path, options, expected) in cases {
            guard let image = try await render(harness, path, options) else { continue }
            let pixel = image.pixels.pixel(x: 8, y: 8)
            #expect(Self.close(pixel, expected), "\(options): \(pixel), expected \(expected)")
        }
    }

    @Test("Given colorize, then the colour lies over the image at the opacity; keep_alpha keeps transparency")
    func colorize() async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        harness.origin.route("/blue.png", .ok(try Self.solid(RGBA(r: 0, g: 0, b: 255)), contentType: "image/png"))
        harness.origin.route("/clear.png", .ok(try Self.solid(RGBA(r: 0, g: 0, b: 0, a: 0)), contentType: "image/png"))
        let cases: [(String, String, RGBA)] = [
            ("/blue.png", "col:0.5:ff0000", RGBA(r: 128, g: 0, b: 128)),
            ("/blue.png", "colorize:1", RGBA(r: 0, g: 0, b: 0)),
            ("/clear.png", "col:0.5:ff0000", RGBA(r: 255, g: 0, b: 0, a: 128)),
            ("/clear.png", "col:0.5:ff0000:1", RGBA(r: 128, g: 0, b: 0, a: 0)),
        ]
        for (path, options, expected) in cases {
            guard let image = try await render(harness, path, options) else { continue }
            let pixel = image.pixels.pixel(x: 8, y: 8)
            // A fully transparent pixel's colour is not defined once encoded: compare alpha only.
            let matches = expected.a == 0 ? pixel.a == 0 : Self.close(pixel, expected)
            #expect(matches, "\(options): \(pixel), expected \(expected)")
        }
    }

    @Test("Given gradient, then the opacity rises from the start to the stop along the direction")
    func gradient() async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        harness.origin.route("/white.png", .ok(try Self.solid(RGBA(r: 255, g: 255, b: 255), size: 100), contentType: "image/png"))
        func value(_ image: Image, _ x: Int, _ y: Int) -> Int { Int(image.pixels.pixel(x: x, y: y).r) }
        if let down = try await render(harness, "/white.png", "gr:1") {
            #expect(value(down, 50, 0) >= 250, "the top is transparent: \(value(down, 50, 0))")
            #expect(value(down, 50, 99) <= 5, "the bottom is black: \(value(down, 50, 99))")
            #expect(abs(value(down, 50, 50) - 127) <= 3, "half way: \(value(down, 50, 50))")
            #expect(value(down, 0, 30) == value(down, 99, 30), "rows are even")
        }
        for (options, darkX) in [("gr:1:000:left", 0), ("gradient:1:000:right", 99), ("gr:1:000:90", 0), ("gr:1:000:270", 99)] {
            guard let image = try await render(harness, "/white.png", options) else { continue }
            #expect(value(image, darkX, 50) <= 5, "\(options): dark side \(value(image, darkX, 50))")
            #expect(value(image, 99 - darkX, 50) >= 250, "\(options): clear side \(value(image, 99 - darkX, 50))")
        }
        if let up = try await render(harness, "/white.png", "gr:0.5:ff0000:up:0.2:0.4") {
            #expect(value(up, 50, 99) == 255 && up.pixels.pixel(x: 50, y: 99).g == 255, "below the start (from the bottom): untouched")
            #expect(up.pixels.pixel(x: 50, y: 0) == RGBA(r: 255, g: 128, b: 128) || Self.close(up.pixels.pixel(x: 50, y: 0), RGBA(r: 255, g: 128, b: 128)),
                    "past the stop: half red \(up.pixels.pixel(x: 50, y: 0))")
        }
    }

    @Test("Given hostile colour arguments, then 400 names the option")
    func hostileValues() async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        harness.origin.route("/grey.png", .ok(try Self.solid(RGBA(r: 100, g: 100, b: 100)), contentType: "image/png"))
        let hostile = [
            "br:256", "br:-256", "br:nan", "br:", "br:1.5", "co:-1", "co:nan", "co:inf", "co:1e400", "sa:-0.5", "sa:101",
            "a:1:2:3:4", "a:x", "mc:2", "mc:-1", "mc:nan", "mc:0.5:zzz", "dt:-1", "dt:1:12345", "col:nan", "col:1.5",
            "col:0.5:f00:maybe", "gr:1:000:sideways", "gr:1:000:down:0.8:0.2", "gr:", "gr:1:000:1e400", "gr:1:000:down:-1",
        ]
        for options in hostile {
            let reply = try await harness.get(harness.plainPath("/grey.png", options: options, ext: "png"))
            let name = String(options.prefix { $0 != ":" })
            #expect(reply.status == 400, "\(options) → \(reply.status) \(reply.text)")
            #expect(reply.text.contains(name), "\(options): \(reply.text)")
        }
    }
}
