import Foundation
import Testing
import WebImage
import WebImageServer
import WebImageTesting

/// `png_options` on animated PNG results over loopback HTTP: `interlaced` interlaces every
/// frame and `quantize` writes one palette for the whole animation, as they do for a still.
@Suite(.timeLimit(.minutes(2))) struct ServiceAnimatedPNGOptionsTests {
    /// Three 48×32 frames of a shifted colour gradient (far more than 16 colours), 0.2 s each,
    /// with a transparent 8×8 top-left corner, as an APNG.
    static func animation() throws -> Data {
        let frames = (0..<3).map { index in
            let pixels = PixelBuffer.make(width: 48, height: 32) { out in
                for y in 0..<32 {
                    for x in 0..<48 {
                        let i = (y * 48 + x) * 4
                        out[i] = UInt8((x * 5 + index * 40) % 256)
                        out[i + 1] = UInt8((y * 7 + index * 20) % 256)
                        out[i + 2] = UInt8((x + y) * 3 % 256)
                        out[i + 3] = x < 8 && y < 8 ? 0 : 255
                    }
                }
            }
            return ImageFrame(pixels: pixels, duration: 0.2)
        }
        return try CodersManager.shared.encode(Image(frames: frames, loopCount: 0, hasAlpha: true), format: .png, options: EncodeOptions())
    }

    private func png(_ harness: ServiceHarness, _ options: String) async throws -> Data? {
        let reply = try await harness.get(harness.plainPath("/anim.png", options: options, ext: "png"))
        #expect(reply.status == 200, "\(options): \(reply.text)")
        return reply.status == 200 ? reply.body : nil
    }

    /// The opaque colours of every frame together.
    private func colours(_ image: Image) -> Set<UInt32> {
        var colours = Set<UInt32>()
        for frame in image.frames {
            let bytes = frame.pixels.bytes
            for i in stride(from: 0, to: bytes.count, by: 4) where bytes[i + 3] == 255 {
                colours.insert(UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2]))
            }
        }
        return colours
    }

    @Test("Given png_options quantize on an animated result, then one palette of at most quantization_colors serves every frame")
    func palette() async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        harness.origin.route("/anim.png", .ok(try Self.animation(), contentType: "image/png"))
        let plain = try #require(try await png(harness, ""))
        #expect(colours(try TestImages.decode(plain)).count > 16, "the source has many colours")
        let quantized = try #require(try await png(harness, "pngo::1:16"))
        let chunks = ServiceEncoderOptionsTests.chunks(quantized)
        #expect(chunks.contains { $0.type == "acTL" }, "still an animation")
        #expect(chunks.first { $0.type == "IHDR" }?.body[9] == 3, "indexed colour")
        #expect(chunks.filter { $0.type == "PLTE" }.count == 1)
        let palette = try #require(chunks.first { $0.type == "PLTE" })
        #expect(palette.body.count <= 16 * 3, "\(palette.body.count / 3) entries")
        #expect(chunks.contains { $0.type == "tRNS" }, "the transparent corner")
        let image = try TestImages.decode(quantized)
        #expect(image.frames.count == 3)
        #expect(image.pixelSize == PixelSize(width: 48, height: 32))
        #expect(image.frames.allSatisfy { abs($0.duration - 0.2) < 0.001 })
        let used = colours(image)
        #expect(used.count <= 16 && used.count > 3, "\(used.count) colours over all frames")
        for frame in image.frames {
            #expect(frame.pixels.pixel(x: 2, y: 2).a == 0, "transparent stays transparent")
            #expect(frame.pixels.pixel(x: 30, y: 20).a == 255)
        }
        // The frames differ, as the source's do.
        #expect(image.frames[0].pixels.bytes != image.frames[1].pixels.bytes)
        #expect(harness.origin.requestCount("/anim.png") == 2)
    }

    @Test("Given png_options interlaced on an animated result, then every frame is Adam7 and the pixels are the same")
    func interlaced() async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        harness.origin.route("/anim.png", .ok(try Self.animation(), contentType: "image/png"))
        let plain = try #require(try await png(harness, ""))
        #expect(ServiceEncoderOptionsTests.chunks(plain).first { $0.type == "IHDR" }?.body[12] == 0)
        let interlaced = try #require(try await png(harness, "pngo:1"))
        let chunks = ServiceEncoderOptionsTests.chunks(interlaced)
        #expect(chunks.contains { $0.type == "acTL" })
        #expect(chunks.first { $0.type == "IHDR" }?.body[12] == 1, "Adam7")
        #expect(chunks.contains { $0.type == "fdAT" }, "later frames are there")
        let a = try TestImages.decode(plain), b = try TestImages.decode(interlaced)
        #expect(b.frames.count == 3)
        #expect(a.frames.map(\.pixels.bytes) == b.frames.map(\.pixels.bytes), "interlacing is lossless")
        // Both at once: an interlaced palette animation.
        let both = try #require(try await png(harness, "pngo:1:1:8"))
        let header = try #require(ServiceEncoderOptionsTests.chunks(both).first { $0.type == "IHDR" })
        #expect(header.body[9] == 3 && header.body[12] == 1)
        let decoded = try TestImages.decode(both)
        #expect(decoded.frames.count == 3 && colours(decoded).count <= 8)
        #expect(harness.origin.requestCount("/anim.png") == 3)
    }
}
