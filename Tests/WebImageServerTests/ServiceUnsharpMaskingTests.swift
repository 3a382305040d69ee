import Foundation
import Testing
import WebImage
@testable import WebImageServer
import WebImageTesting

/// `unsharp_masking` (`ush`) and the `unsharp-masking-*` settings over loopback HTTP: the 3×3
/// mask's arithmetic, imgproxy's modes (`auto` only on downscaled results of requests without
/// `sharpen`), and hostile values.
@Suite(.timeLimit(.minutes(3))) struct ServiceUnsharpMaskingTests {
    /// A 16×16 grey (100) PNG with one brighter (200) pixel at (8, 8).
    static func dot() throws -> Data {
        let pixels = PixelBuffer.make(width: 16, height: 16) { out in
            for i in stride(from: 0, to: out.count, by: 4) {
                let value: UInt8 = i == (8 * 16 + 8) * 4 ? 200 : 100
                out[i] = value; out[i + 1] = value; out[i + 2] = value; out[i + 3] = 255
            }
        }
        return try CodersManager.shared.encode(Image(pixels: pixels, hasAlpha: false), format: .png, options: EncodeOptions())
    }

    private func render(_ harness: ServiceHarness, _ path: String, _ options: String) async throws -> PixelBuffer? {
        let reply = try await harness.get(harness.plainPath(path, options: options, ext: "png"))
        #expect(reply.status == 200, "\(options): \(reply.text)")
        guard reply.status == 200 else { return nil }
        return try TestImages.decode(reply.body).pixels
    }

    @Test("Given ush:always, then each channel is p + weight/divider × (8p − its neighbours)")
    func arithmetic() async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        harness.origin.route("/dot.png", .ok(try Self.dot(), contentType: "image/png"))
        // Weight 1, divider 24 (the defaults): the dot 200 + 800/24 = 233.3; its neighbours
        // 100 + (800 − 900)/24 = 95.8; the rest stays 100.
        // Weight 1, divider 48: 200 + 800/48 = 216.7 and 100 − 100/48 = 97.9.
        // Weight 3, divider 24: 200 + 2400/24 = 300, clamped to 255; 100 − 300/24 = 87.5.
        for (options, dot, neighbour) in [("ush:always", 233, 96), ("ush:always:1:24", 233, 96), ("ush:always:1:48", 217, 98), ("unsharp_masking:always:3", 255, 88)] {
            guard let pixels = try await render(harness, "/dot.png", options) else { continue }
            #expect(pixels.pixel(x: 8, y: 8) == RGBA(r: UInt8(dot), g: UInt8(dot), b: UInt8(dot)), "\(options): \(pixels.pixel(x: 8, y: 8))")
            #expect(pixels.pixel(x: 7, y: 7) == RGBA(r: UInt8(neighbour), g: UInt8(neighbour), b: UInt8(neighbour)), "\(options): \(pixels.pixel(x: 7, y: 7))")
            #expect(pixels.pixel(x: 2, y: 2) == RGBA(r: 100, g: 100, b: 100), "\(options)")
        }
    }

    @Test("Given ush:auto, then only a downscaled result without sharpen is masked; ush:none and the default never")
    func modes() async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        harness.origin.route("/gradient.png", .ok(try TestImages.png(width: 64, height: 64), contentType: "image/png"))
        harness.origin.route("/dot.png", .ok(try Self.dot(), contentType: "image/png"))
        let plain = try #require(try await render(harness, "/dot.png", ""))
        let autoSameSize = try #require(try await render(harness, "/dot.png", "ush:auto"))
        #expect(autoSameSize.bytes == plain.bytes, "auto does not mask a result that is not downscaled")
        let down = "rs:force:40:24/ra:linear"
        let none = try #require(try await render(harness, "/dot.png", down + "/ush:none"))
        let byDefault = try #require(try await render(harness, "/dot.png", down))
        #expect(byDefault.bytes == none.bytes, "the service's default mode is none")
        let autoDown = try #require(try await render(harness, "/dot.png", "rs:fit:8:8/ush:auto"))
        let noneDown = try #require(try await render(harness, "/dot.png", "rs:fit:8:8/ush:none"))
        let alwaysDown = try #require(try await render(harness, "/dot.png", "rs:fit:8:8/ush:always"))
        #expect(autoDown.bytes != noneDown.bytes, "auto masks a downscaled result")
        #expect(autoDown.bytes == alwaysDown.bytes)
        let sharpened = try #require(try await render(harness, "/dot.png", "rs:fit:8:8/sh:1/ush:auto"))
        let sharpenedOnly = try #require(try await render(harness, "/dot.png", "rs:fit:8:8/sh:1/ush:none"))
        #expect(sharpened.bytes == sharpenedOnly.bytes, "auto leaves a request with sharpen alone")
        // Omitted arguments keep the service's: weight 1, divider 24.
        let partial = try #require(try await render(harness, "/dot.png", "ush:always::"))
        let full = try #require(try await render(harness, "/dot.png", "ush:always:1:24"))
        #expect(partial.bytes == full.bytes)
    }

    @Test("Given the unsharp-masking-* settings, then requests without ush follow them and ush overrides them field by field")
    func settings() async throws {
        let (configuration, _, _) = try ImageServiceSettings.configuration(from: [
            "unsharp-masking-mode": ["always"], "unsharp-masking-divider": ["48"],
        ])
        #expect(configuration.unsharpMasking == UnsharpMasking(mode: .always, weight: 1, divider: 48))
        #expect(configuration.outputFingerprint != ImageServiceConfiguration().outputFingerprint)
        for bad in [["unsharp-masking-mode": ["sometimes"]], ["unsharp-masking-weight": ["0"]], ["unsharp-masking-divider": ["nan"]], ["unsharp-masking-weight": ["-3"]]] {
            #expect(throws: ImageServiceSettings.Problem.self, "\(bad)") { try ImageServiceSettings.configuration(from: bad) }
        }
        let harness = try await ServiceHarness.start { $0.unsharpMasking = configuration.unsharpMasking }
        defer { Task { await harness.stop() } }
        harness.origin.route("/dot.png", .ok(try Self.dot(), contentType: "image/png"))
        let masked = try #require(try await render(harness, "/dot.png", ""))
        #expect(masked.pixel(x: 8, y: 8) == RGBA(r: 217, g: 217, b: 217), "\(masked.pixel(x: 8, y: 8))")
        let weighted = try #require(try await render(harness, "/dot.png", "ush::2"))
        // Weight 2 over the service's divider 48: 200 + 1600/48 = 233.3.
        #expect(weighted.pixel(x: 8, y: 8) == RGBA(r: 233, g: 233, b: 233), "\(weighted.pixel(x: 8, y: 8))")
        let off = try #require(try await render(harness, "/dot.png", "ush:none"))
        #expect(off.pixel(x: 8, y: 8) == RGBA(r: 200, g: 200, b: 200))
    }

    @Test("Given hostile unsharp_masking arguments, then 400 names the option")
    func hostileValues() async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        harness.origin.route("/dot.png", .ok(try Self.dot(), contentType: "image/png"))
        let hostile = [
            "ush:sometimes", "ush:auto:0", "ush:auto:-1", "ush:auto:nan", "ush:auto:inf", "ush:auto:1e400", "ush:auto:1:0",
            "ush:auto:1:-24", "ush:auto:1:NaN", "ush:auto:1:2000000", "ush:auto:1:2:3", "ush:AUTO", "unsharp_masking:always:x",
        ]
        for options in hostile {
            let reply = try await harness.get(harness.plainPath("/dot.png", options: options, ext: "png"))
            #expect(reply.status == 400, "\(options) → \(reply.status) \(reply.text)")
            #expect(reply.text.contains(String(options.prefix { $0 != ":" })), "\(options): \(reply.text)")
        }
    }
}
