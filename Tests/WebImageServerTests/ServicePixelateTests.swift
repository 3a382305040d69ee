import Foundation
import Testing
import WebImage
import WebImageTesting

@testable import WebImageServer

/// `pixelate` (`pix`) over loopback HTTP: blocks of the asked side on the result, from the
/// top-left corner, on every frame.
@Suite(.serialized, .timeLimit(.minutes(3))) struct ServicePixelateTests {
    @Test("Given pix:8 on a 40×30 result, when served, then every 8×8 block (the cut ones too) is one colour and neighbours differ")
    func blocks() async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        harness.origin.route("/src.png", .ok(try TestImages.png(width: 64, height: 48), contentType: "image/png"))
        let reply = try await harness.get(harness.plainPath("/src.png", options: "w:40/pix:8", ext: "png"))
        #expect(reply.status == 200, "\(reply.text)")
        let image = try TestImages.decode(reply.body)
        #expect(image.pixelSize == PixelSize(width: 40, height: 30))
        let pixels = image.pixels
        for y in 0..<30 {
            for x in 0..<40 {
                let corner = pixels.pixel(x: x / 8 * 8, y: y / 8 * 8)
                #expect(pixels.pixel(x: x, y: y) == corner, "(\(x), \(y))")
            }
        }
        // The source is a gradient: neighbouring blocks differ, across and down.
        #expect(pixels.pixel(x: 0, y: 0).r < pixels.pixel(x: 8, y: 0).r)
        #expect(pixels.pixel(x: 0, y: 0).g < pixels.pixel(x: 0, y: 8).g)
        // The cut bottom row of blocks (rows 24–29) is a block of its own.
        #expect(pixels.pixel(x: 0, y: 24) != pixels.pixel(x: 0, y: 16))
    }

    @Test("Given pix:1 or pix:0, when served, then it is the image without the option (same ETag); bad values answer 400 naming the option")
    func offAndBad() async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        harness.origin.route("/src.png", .ok(try TestImages.png(width: 32, height: 32), contentType: "image/png"))
        let plain = try await harness.get(harness.plainPath("/src.png", ext: "png"))
        for off in ["pix:1", "pixelate:0"] {
            let reply = try await harness.get(harness.plainPath("/src.png", options: off, ext: "png"))
            #expect(reply.status == 200)
            #expect(reply.header("ETag") == plain.header("ETag"), "\(off)")
        }
        #expect(try await harness.get(harness.plainPath("/src.png", options: "pix:8", ext: "png")).header("ETag") != plain.header("ETag"))
        for bad in ["pix:abc", "pix:-2", "pixelate:4:4", "pix:99999"] {
            let reply = try await harness.get(harness.plainPath("/src.png", options: bad, ext: "png"))
            #expect(reply.status == 400, "\(bad)")
            #expect(reply.text.contains("bad option " + String(bad.prefix { $0 != ":" })), "\(bad): \(reply.text)")
        }
    }

    @Test("Given an animated GIF, when pixelated, then every frame is kept")
    func animated() async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        harness.origin.route("/anim.gif", .ok(try TestImages.animatedGIF(frames: 4), contentType: "image/gif"))
        let reply = try await harness.get(harness.plainPath("/anim.gif", options: "pix:4", ext: "gif"))
        #expect(reply.status == 200, "\(reply.text)")
        let image = try TestImages.decode(reply.body)
        #expect(image.frames.count == 4)
        #expect(image.pixelSize == PixelSize(width: 40, height: 30))
    }
}
