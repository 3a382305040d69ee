import Foundation
import Testing
import WebImage
import WebImageServer
import WebImageTesting

/// `disable_animation` and `background_alpha` over loopback HTTP.
@Suite(.timeLimit(.minutes(3))) struct ServiceStillAndAlphaOptionsTests {
    @Test("Given disable_animation, then an animated source gives its first frame (or the page asked for) as a still")
    func disableAnimation() async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        harness.origin.route("/anim.gif", .ok(try TestImages.animatedGIF(frames: 4), contentType: "image/gif"))
        for (options, frames, shade) in [("da:1", 1, 0), ("disable_animation:1/pg:2", 1, 170), ("da:0", 4, 0), ("w:40", 4, 0)] {
            let reply = try await harness.get(harness.plainPath("/anim.gif", options: options, ext: "gif"))
            #expect(reply.status == 200, "\(options): \(reply.text)")
            guard reply.status == 200 else { continue }
            let image = try TestImages.decode(reply.body)
            #expect(image.frames.count == frames, "\(options)")
            #expect(abs(Int(image.pixels.pixel(x: 20, y: 15).r) - shade) <= 8, "\(options): \(image.pixels.pixel(x: 20, y: 15))")
        }
        let bad = try await harness.get(harness.plainPath("/anim.gif", options: "da:maybe", ext: "gif"))
        #expect(bad.status == 400 && bad.text.contains("da"), "\(bad.text)")
    }

    @Test("Given background_alpha, then the background (and extend's fill) has that opacity and the result keeps alpha")
    func backgroundAlpha() async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        harness.origin.route("/clear.png", .ok(try ServiceColorFilterTests.solid(RGBA(r: 0, g: 0, b: 0, a: 0)), contentType: "image/png"))
        harness.origin.route("/blue.png", .ok(try ServiceColorFilterTests.solid(RGBA(r: 0, g: 0, b: 255)), contentType: "image/png"))
        let cases: [(String, String, RGBA, (Int, Int))] = [
            ("/clear.png", "bg:ff0000/bga:0.5", RGBA(r: 255, g: 0, b: 0, a: 128), (8, 8)),
            ("/clear.png", "bg:ff0000/background_alpha:1", RGBA(r: 255, g: 0, b: 0, a: 255), (8, 8)),
            ("/blue.png", "bg:ff0000/bga:0.5", RGBA(r: 0, g: 0, b: 255, a: 255), (8, 8)),
            ("/blue.png", "s:32:32/ex:1/bg:ff0000/bga:0.25", RGBA(r: 255, g: 0, b: 0, a: 64), (0, 0)),
            ("/blue.png", "pd:4/bg:00ff00/bga:0.5", RGBA(r: 0, g: 255, b: 0, a: 128), (0, 0)),
        ]
        for (path, options, expected, (x, y)) in cases {
            let reply = try await harness.get(harness.plainPath(path, options: options, ext: "png"))
            #expect(reply.status == 200, "\(options): \(reply.text)")
            guard reply.status == 200 else { continue }
            let pixel = try TestImages.decode(reply.body).pixels.pixel(x: x, y: y)
            let close = abs(Int(pixel.r) - Int(expected.r)) <= 1 && abs(Int(pixel.g) - Int(expected.g)) <= 1
                && abs(Int(pixel.b) - Int(expected.b)) <= 1 && abs(Int(pixel.a) - Int(expected.a)) <= 1
            #expect(close, "\(options): \(pixel), expected \(expected)")
        }
        for options in ["bga:-0.1", "bga:1.5", "bga:nan", "bga:", "bga:0.5:1"] {
            let reply = try await harness.get(harness.plainPath("/blue.png", options: "bg:fff/" + options, ext: "png"))
            #expect(reply.status == 400 && reply.text.contains("bga"), "\(options) → \(reply.status) \(reply.text)")
        }
    }
}

/// `crop_aspect_ratio` over loopback HTTP, following imgproxy's documented example.
@Suite(.timeLimit(.minutes(3))) struct ServiceCropAspectRatioTests {
    @Test("Given imgproxy's example crop:100:200:nowe:300:400/crop_ar:1:1, then the 200×200 area at 300, 400 is cut")
    func documentedExample() async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        harness.origin.route("/src.png", .ok(try TestImages.png(width: 800, height: 800), contentType: "image/png"))
        func pixels(_ options: String) async throws -> Image? {
            let reply = try await harness.get(harness.plainPath("/src.png", options: options, ext: "png"))
            #expect(reply.status == 200, "\(options): \(reply.text)")
            return reply.status == 200 ? try TestImages.decode(reply.body) : nil
        }
        let example = try await pixels("crop:100:200:nowe:300:400/crop_ar:1:1")
        let area = try await pixels("crop:200:200:nowe:300:400")
        #expect(example?.pixelSize == PixelSize(width: 200, height: 200))
        #expect(example?.pixels.bytes == area?.pixels.bytes, "the 300x400x200x200 area")
        let reduced = try await pixels("c:100:200:nowe:300:400/car:1")
        #expect(reduced?.pixelSize == PixelSize(width: 100, height: 100), "without enlarge the longer side is reduced")
        let fitted = try await pixels("c:600:100/crop_aspect_ratio:0.5:1")
        #expect(fitted?.pixelSize == PixelSize(width: 400, height: 800), "enlarged past the source, then fitted keeping the ratio")
        let off = try await pixels("c:100:200/car:0")
        #expect(off?.pixelSize == PixelSize(width: 100, height: 200))
        for options in ["car:-1", "car:nan", "car:", "car:1:maybe", "car:inf", "car:1:1:1"] {
            let reply = try await harness.get(harness.plainPath("/src.png", options: "c:10:10/" + options, ext: "png"))
            #expect(reply.status == 400 && reply.text.contains("car"), "\(options) → \(reply.status) \(reply.text)")
        }
    }
}
