import Foundation
import Testing
import WebImage
import WebImageServer
import WebImageTesting

/// `resizing_algorithm` (`ra`) over loopback HTTP: imgproxy's five names, each resample done
/// with its kernel, and its hostile values.
@Suite(.timeLimit(.minutes(3))) struct ServiceResizingAlgorithmTests {
    /// A `size`×`size` image of one-pixel black and white columns.
    static func stripes(size: Int) -> Image {
        let pixels = PixelBuffer.make(width: size, height: size) { out in
            for y in 0..<size {
                for x in 0..<size {
                    let value: UInt8 = x % 2 == 0 ? 0 : 255, index = (y * size + x) * 4
                    out[index] = value; out[index + 1] = value; out[index + 2] = value; out[index + 3] = 255
                }
            }
        }
        return Image(pixels: pixels, hasAlpha: false)
    }

    /// A `size`×`size` image of seeded noise (every kernel gives it different pixels).
    static func noise(size: Int) -> Image {
        var random = SeededRandom(seed: 0x0A11_6047)
        let pixels = PixelBuffer.make(width: size, height: size) { out in
            for index in stride(from: 0, to: out.count, by: 4) {
                out[index] = UInt8(random.below(256)); out[index + 1] = UInt8(random.below(256))
                out[index + 2] = UInt8(random.below(256)); out[index + 3] = 255
            }
        }
        return Image(pixels: pixels, hasAlpha: false)
    }

    static func png(_ image: Image) throws -> Data {
        try CodersManager.shared.encode(image, format: .png, options: EncodeOptions())
    }

    @Test("Given ra:nearest, when stripes are halved, then every pixel is a source colour; lanczos3 and linear average them to grey")
    func nearestKeepsSourceColours() async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        harness.origin.route("/stripes.png", .ok(try Self.png(Self.stripes(size: 32)), contentType: "image/png"))
        for (option, pure) in [("ra:nearest", true), ("resizing_algorithm:nearest", true), ("ra:lanczos3", false), ("ra:linear", false), ("", false)] {
            let reply = try await harness.get(harness.plainPath("/stripes.png", options: "rs:force:16:16" + (option.isEmpty ? "" : "/" + option), ext: "png"))
            #expect(reply.status == 200, "\(option): \(reply.text)")
            guard reply.status == 200 else { continue }
            let image = try TestImages.decode(reply.body)
            #expect(image.pixelSize == PixelSize(width: 16, height: 16))
            let reds = Set(stride(from: 0, to: image.pixels.bytes.count, by: 4).map { image.pixels.bytes[$0] })
            if pure {
                #expect(reds.isSubset(of: [0, 255]), "\(option): \(reds.sorted())")
            } else {
                #expect(reds.contains { $0 > 64 && $0 < 192 }, "\(option) should average the stripes: \(reds.sorted())")
            }
        }
    }

    @Test("Given each algorithm, when a PNG is resized, then the pixels are the resampler's with that kernel", arguments: ResizingAlgorithm.allCases)
    func eachAlgorithmIsItsKernel(algorithm: ResizingAlgorithm) async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        let source = Self.noise(size: 48)
        harness.origin.route("/noise.png", .ok(try Self.png(source), contentType: "image/png"))
        let reply = try await harness.get(harness.plainPath("/noise.png", options: "rs:force:32:20/ra:\(algorithm.rawValue)", ext: "png"))
        #expect(reply.status == 200, "\(reply.text)")
        guard reply.status == 200 else { return }
        let served = try TestImages.decode(reply.body).pixels
        let expected = Resampler(filter: algorithm.filter).resample(source.pixels, to: PixelSize(width: 32, height: 20))
        #expect(served.bytes == expected.bytes, "\(algorithm)")
        for other in ResizingAlgorithm.allCases where other != algorithm {
            let theirs = Resampler(filter: other.filter).resample(source.pixels, to: PixelSize(width: 32, height: 20))
            #expect(served.bytes != theirs.bytes, "\(algorithm) gave \(other)'s pixels")
        }
    }

    @Test("Given a hostile resizing_algorithm, then 400 names the option and the names allowed")
    func hostileValues() async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        harness.origin.route("/noise.png", .ok(try Self.png(Self.noise(size: 8)), contentType: "image/png"))
        for options in ["ra:", "ra:bicubic", "ra:LANCZOS3", "ra:nearest:1", "ra:nan", "ra:-1", "ra:\(String(repeating: "x", count: 4000))"] {
            let reply = try await harness.get(harness.plainPath("/noise.png", options: options, ext: "png"))
            #expect(reply.status == 400, "\(options.prefix(40)) → \(reply.status) \(reply.text)")
            #expect(reply.text.contains(String(options.prefix { $0 != ":" })), "\(options.prefix(40)): \(reply.text)")
        }
    }
}
