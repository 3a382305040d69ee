import Foundation
import Testing
import WebImage
import WebImageServer
import WebImageTesting

@Suite(.timeLimit(.minutes(2))) struct ServiceHTTPTests {
    @Test func geometryOfEachResizingType() async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        harness.origin.route("/src.png", .ok(try TestImages.png(width: 400, height: 200), contentType: "image/png"))
        let cases: [(String, Int, Int)] = [
            ("rs:fit:100:100", 100, 50),
            ("rs:fill:100:100", 100, 100),
            ("rs:force:100:100", 100, 100),
            ("rs:fill-down:800:400", 400, 200),
            ("rs:fill-down:800:800", 200, 200),
            ("rs:fit:800:800", 400, 200),
            ("rs:fit:800:800:1", 800, 400),
            ("rs:auto:100:50", 100, 50),
            ("rs:auto:50:100", 50, 25),
            ("w:100", 100, 50),
            ("h:50", 100, 50),
            ("w:100/dpr:2", 200, 100),
            ("rs:fit:800:800:0:1", 800, 800),
            ("c:100:100/rs:fit:50:50", 50, 50),
            ("c:0.5:0.5", 200, 100),
            ("rot:90", 200, 400),
            ("rs:fill:100:100/g:sm", 100, 100),
            ("rs:fill:100:100/g:fp:0.9:0.5", 100, 100),
        ]
        for (options, width, height) in cases {
            let reply = try await harness.get(harness.plainPath("/src.png", options: options, ext: "png"))
            #expect(reply.status == 200, "\(options): \(reply.text)")
            guard reply.status == 200 else { continue }
            let image = try TestImages.decode(reply.body)
            #expect(image.width == width && image.height == height, "\(options): got \(image.pixelSize)")
        }
    }

    @Test func gravityChoosesTheKeptSide() async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        harness.origin.route("/src.png", .ok(try TestImages.png(width: 400, height: 100), contentType: "image/png"))
        // fill 100x100 from 400x100: the kept square is the west, center or east quarter.
        var reds: [String: UInt8] = [:]
        for gravity in ["we", "ce", "ea", "fp:0.1:0.5"] {
            let reply = try await harness.get(harness.plainPath("/src.png", options: "rs:fill:100:100/g:\(gravity)", ext: "png"))
            #expect(reply.status == 200)
            reds[gravity] = try TestImages.decode(reply.body).pixels.pixel(x: 50, y: 50).r
        }
        #expect(reds["we"]! < 40, "\(reds)")
        #expect((110...145).contains(reds["ce"]!), "\(reds)")
        #expect(reds["ea"]! > 215, "\(reds)")
        #expect(reds["fp:0.1:0.5"]! < 60, "\(reds)")
    }

    @Test func animatedGIFBecomesAnimatedWebPWithFramesAndTiming() async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        harness.origin.route("/anim.gif", .ok(try TestImages.animatedGIF(frames: 5, delay: 0.2), contentType: "image/gif"))
        let reply = try await harness.get(harness.plainPath("/anim.gif", options: "w:20", ext: "webp"))
        #expect(reply.status == 200, "\(reply.text)")
        #expect(reply.header("Content-Type") == "image/webp")
        #expect(ImageFormat.detect(reply.body) == .webp)
        let image = try TestImages.decode(reply.body)
        #expect(image.frames.count == 5)
        #expect(image.width == 20 && image.height == 15)
        for frame in image.frames { #expect(abs(frame.duration - 0.2) < 0.011) }
    }

    @Test func eachFormatOutAndAcceptNegotiationWithVary() async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        harness.origin.route("/src.png", .ok(try TestImages.png(width: 64, height: 48), contentType: "image/png"))
        for (ext, format) in [("jpg", ImageFormat.jpeg), ("png", .png), ("webp", .webp), ("avif", .avif), ("gif", .gif)] {
            let reply = try await harness.get(harness.plainPath("/src.png", ext: ext))
            #expect(reply.status == 200, "\(ext): \(reply.text)")
            #expect(ImageFormat.detect(reply.body) == format, "\(ext)")
            #expect(reply.header("Content-Type") == format.mimeType)
            #expect(reply.header("Vary") == nil, "explicit format must not vary")
            #expect(reply.header("Content-Length") == String(reply.body.count))
        }
        let viaOption = try await harness.get(harness.plainPath("/src.png", options: "f:jpg"))
        #expect(ImageFormat.detect(viaOption.body) == .jpeg && viaOption.header("Vary") == nil)
        let negotiated = try await harness.get(harness.plainPath("/src.png"), headers: [("Accept", "image/webp,*/*")])
        #expect(ImageFormat.detect(negotiated.body) == .webp)
        #expect(negotiated.header("Vary") == "Accept")
        let fallback = try await harness.get(harness.plainPath("/src.png"), headers: [("Accept", "*/*")])
        #expect(ImageFormat.detect(fallback.body) == .png)
        #expect(fallback.header("Vary") == "Accept")
        #expect(negotiated.header("ETag") != fallback.header("ETag"))
    }

    @Test func negotiationOffMeansNoVary() async throws {
        let harness = try await ServiceHarness.start { $0.autoWebP = false; $0.autoAVIF = false }
        defer { Task { await harness.stop() } }
        harness.origin.route("/src.png", .ok(try TestImages.png(width: 16, height: 16), contentType: "image/png"))
        let reply = try await harness.get(harness.plainPath("/src.png"), headers: [("Accept", "image/webp,image/avif")])
        #expect(ImageFormat.detect(reply.body) == .png)
        #expect(reply.header("Vary") == nil)
    }
}
