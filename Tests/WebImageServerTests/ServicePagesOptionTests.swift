import Foundation
import Testing
import WebImage
@testable import WebImageServer
import WebImageTesting

/// `pages` (`pgs`): several pages of a TIFF or frames of an animated source from `page`, stacked
/// into one still result or kept as an animation, over loopback HTTP.
@Suite(.timeLimit(.minutes(2))) struct ServicePagesOptionTests {
    /// A 2-page TIFF: a 30×20 red page, then a 20×10 blue one.
    private func twoPageTIFF() throws -> Data {
        let red = (0..<(30 * 20 * 3)).map { UInt8($0 % 3 == 0 ? 255 : 0) }
        let blue = (0..<(20 * 10 * 3)).map { UInt8($0 % 3 == 2 ? 255 : 0) }
        return try TIFFTestWriter.write([
            TIFFTestPage(width: 30, height: 20, samples: red),
            TIFFTestPage(width: 20, height: 10, samples: blue),
        ])
    }

    /// The red sample of `image`'s first frame at (`x`, `y`).
    private func red(_ image: Image, _ x: Int, _ y: Int) -> Int { Int(image.pixels.pixel(x: x, y: y).r) }

    @Test("Given pages on an animated GIF with a still result, then the frames from page are stacked top to bottom")
    func stackedFrames() async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        // 4 frames of 40×30, red 0, 85, 170, 255.
        harness.origin.route("/anim.gif", .ok(try TestImages.animatedGIF(frames: 4), contentType: "image/gif"))
        let two = try await harness.get(harness.plainPath("/anim.gif", options: "pg:1/pgs:2", ext: "jpg"))
        #expect(two.status == 200, "\(two.text)")
        let stacked = try TestImages.decode(two.body)
        #expect(stacked.frames.count == 1)
        #expect(stacked.pixelSize == PixelSize(width: 40, height: 60))
        guard stacked.pixelSize == PixelSize(width: 40, height: 60) else { return }
        #expect(abs(red(stacked, 20, 15) - 85) <= 8 && abs(red(stacked, 20, 45) - 170) <= 8)

        // Past the last frame: the frames there are (all 4 from 0).
        let all = try await harness.get(harness.plainPath("/anim.gif", options: "pages:10", ext: "jpg"))
        #expect(all.status == 200, "\(all.text)")
        let four = try TestImages.decode(all.body)
        #expect(four.pixelSize == PixelSize(width: 40, height: 120))
        guard four.pixelSize == PixelSize(width: 40, height: 120) else { return }
        #expect(abs(red(four, 20, 15)) <= 8 && abs(red(four, 20, 105) - 255) <= 8)

        // disable_animation makes an animatable result a still one: stacked too.
        let still = try await harness.get(harness.plainPath("/anim.gif", options: "da:1/pgs:3", ext: "gif"))
        #expect(still.status == 200, "\(still.text)")
        let three = try TestImages.decode(still.body)
        #expect(three.frames.count == 1 && three.pixelSize == PixelSize(width: 40, height: 90))
        #expect(harness.origin.requestCount("/anim.gif") == 3)
    }

    @Test("Given pages on an animated GIF with an animated result, then those frames stay an animation")
    func animatedFrames() async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        harness.origin.route("/anim.gif", .ok(try TestImages.animatedGIF(frames: 4, delay: 0.2), contentType: "image/gif"))
        let reply = try await harness.get(harness.plainPath("/anim.gif", options: "pg:2/pgs:2", ext: "gif"))
        #expect(reply.status == 200, "\(reply.text)")
        let image = try TestImages.decode(reply.body)
        #expect(image.frames.count == 2)
        #expect(image.pixelSize == PixelSize(width: 40, height: 30))
        #expect(abs(Int(image.frames[0].pixels.pixel(x: 20, y: 15).r) - 170) <= 8)
        #expect(abs(Int(image.frames[1].pixels.pixel(x: 20, y: 15).r) - 255) <= 8)
        #expect(image.frames.allSatisfy { abs($0.duration - 0.2) < 0.001 })
        #expect(harness.origin.requestCount("/anim.gif") == 1)
    }

    @Test("Given pages on a TIFF with a still result, then its pages are stacked top to bottom")
    func tiffPages() async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        harness.origin.route("/doc.tif", .ok(try twoPageTIFF(), contentType: "image/tiff"))
        let reply = try await harness.get(harness.plainPath("/doc.tif", options: "da:1/pgs:2", ext: "png"))
        #expect(reply.status == 200, "\(reply.text)")
        let image = try TestImages.decode(reply.body)
        // The TIFF decoder fits later pages into the first page's 30×20 canvas.
        #expect(image.frames.count == 1 && image.pixelSize == PixelSize(width: 30, height: 40))
        guard image.pixelSize == PixelSize(width: 30, height: 40) else { return }
        #expect(image.pixels.pixel(x: 15, y: 10) == RGBA(r: 255, g: 0, b: 0))
        #expect(image.pixels.pixel(x: 15, y: 30) == RGBA(r: 0, g: 0, b: 255))
        #expect(harness.origin.requestCount("/doc.tif") == 1)
    }

    @Test("Given pages on a PDF, then its pages from page are drawn and stacked top to bottom, or kept as an animation")
    func pdfPages() async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        // Page 0: 200×100, its left half red on white; page 1: 100×300, blue.
        harness.origin.route("/doc.pdf", .ok(TestPDF.twoPages, contentType: "application/pdf"))
        let reply = try await harness.get(harness.plainPath("/doc.pdf", options: "da:1/pgs:2", ext: "png"))
        #expect(reply.status == 200, "\(reply.text)")
        let stacked = try TestImages.decode(reply.body)
        #expect(stacked.frames.count == 1 && stacked.pixelSize == PixelSize(width: 200, height: 400))
        guard stacked.pixelSize == PixelSize(width: 200, height: 400) else { return }
        #expect(stacked.pixels.pixel(x: 50, y: 50) == RGBA(r: 255, g: 0, b: 0))
        #expect(stacked.pixels.pixel(x: 150, y: 50) == RGBA(r: 255, g: 255, b: 255), "page 0's white paper")
        #expect(stacked.pixels.pixel(x: 50, y: 250) == RGBA(r: 0, g: 0, b: 255), "page 1 under page 0")
        #expect(stacked.pixels.pixel(x: 150, y: 250).a == 0, "right of the narrower page is transparent")

        // From page 1, more pages than there are: page 1 alone.
        let last = try await harness.get(harness.plainPath("/doc.pdf", options: "pg:1/pgs:5", ext: "png"))
        #expect(last.status == 200, "\(last.text)")
        let one = try TestImages.decode(last.body)
        #expect(one.pixelSize == PixelSize(width: 100, height: 300))
        #expect(one.pixels.pixel(x: 50, y: 150) == RGBA(r: 0, g: 0, b: 255))

        // An animated result keeps the pages as frames, each drawn at the first page's size.
        let animated = try await harness.get(harness.plainPath("/doc.pdf", options: "pgs:2", ext: "gif"))
        #expect(animated.status == 200, "\(animated.text)")
        let frames = try TestImages.decode(animated.body)
        #expect(frames.frames.count == 2 && frames.pixelSize == PixelSize(width: 200, height: 100))
        if frames.frames.count == 2 {
            #expect(frames.frames[1].pixels.pixel(x: 100, y: 50) == RGBA(r: 0, g: 0, b: 255))
        }

        // A page past the last is refused, naming it.
        let past = try await harness.get(harness.plainPath("/doc.pdf", options: "da:1/pg:2/pgs:2", ext: "png"))
        #expect(past.status == 422, "\(past.text)")
        #expect(past.text.contains("page 2"), "\(past.text)")
        #expect(harness.origin.requestCount("/doc.pdf") == 4)
    }

    @Test("Given pages on a PDF whose pages together are over the source resolution limit, then 413")
    func pdfPagesLimit() async throws {
        // Page 0 is 20 000 pixels and page 1 30 000: each within 40 000, the two together not.
        let harness = try await ServiceHarness.start { $0.limits.maxSourcePixels = 40_000 }
        defer { Task { await harness.stop() } }
        harness.origin.route("/doc.pdf", .ok(TestPDF.twoPages, contentType: "application/pdf"))
        let over = try await harness.get(harness.plainPath("/doc.pdf", options: "da:1/pgs:2", ext: "png"))
        #expect(over.status == 413, "\(over.text)")
        let within = try await harness.get(harness.plainPath("/doc.pdf", options: "pg:1", ext: "png"))
        #expect(within.status == 200, "\(within.text)")
    }

    @Test("Given pages on a PDF kept as an animation, then more pages than max_animation_frames answer 413")
    func pdfPagesFrameLimit() async throws {
        let harness = try await ServiceHarness.start { $0.limits.maxAnimationFrames = 1 }
        defer { Task { await harness.stop() } }
        harness.origin.route("/doc.pdf", .ok(TestPDF.twoPages, contentType: "application/pdf"))
        let over = try await harness.get(harness.plainPath("/doc.pdf", options: "pgs:2", ext: "gif"))
        #expect(over.status == 413, "\(over.text)")
        #expect(over.text.contains("frames"), "\(over.text)")
        let stacked = try await harness.get(harness.plainPath("/doc.pdf", options: "da:1/pgs:2", ext: "png"))
        #expect(stacked.status == 200, "stacking makes no frames: \(stacked.text)")
    }

    @Test("Given pages of different widths, then the stack is left-aligned on a transparent canvas as wide as the widest")
    func stackLayout() throws {
        let wide = PixelBuffer(width: 4, height: 2, bytes: [UInt8](repeating: 200, count: 4 * 2 * 4))
        let narrow = PixelBuffer(width: 2, height: 3, bytes: [UInt8](repeating: 100, count: 2 * 3 * 4))
        let stacked = try PageStack(pages: [wide, narrow], maxPixels: 20).render()
        #expect(stacked.width == 4 && stacked.height == 5)
        #expect(stacked.pixel(x: 3, y: 1) == RGBA(r: 200, g: 200, b: 200, a: 200))
        #expect(stacked.pixel(x: 1, y: 4) == RGBA(r: 100, g: 100, b: 100, a: 100))
        #expect(stacked.pixel(x: 3, y: 4) == RGBA(r: 0, g: 0, b: 0, a: 0), "right of the narrower page is transparent")
        #expect(throws: ImageServiceError.self) { try PageStack(pages: [wide, narrow], maxPixels: 19).render() }
    }

    @Test("Given pages whose stack is over the source resolution limit, then 413 before decoding")
    func stackLimitBeforeDecoding() async throws {
        // Each 40×30 frame (1200 pixels) is within 3000; four stacked (4800) are not.
        let harness = try await ServiceHarness.start { $0.limits.maxSourcePixels = 3000 }
        defer { Task { await harness.stop() } }
        harness.origin.route("/anim.gif", .ok(try TestImages.animatedGIF(frames: 4), contentType: "image/gif"))
        let over = try await harness.get(harness.plainPath("/anim.gif", options: "pgs:4", ext: "jpg"))
        #expect(over.status == 413, "\(over.text)")
        #expect(over.text.contains("stacked"), "\(over.text)")
        #expect(harness.service.decodeCount == 0)
        let within = try await harness.get(harness.plainPath("/anim.gif", options: "pgs:2", ext: "jpg"))
        #expect(within.status == 200, "\(within.text)")
        #expect(harness.origin.requestCount("/anim.gif") == 2)
    }

    @Test("Given bad pages arguments, then 400 names the option before fetching")
    func badArguments() async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        harness.origin.route("/src.png", .ok(try TestImages.png(width: 20, height: 10), contentType: "image/png"))
        for (options, name) in [("pgs:0", "pgs"), ("pages:-1", "pages"), ("pgs:x", "pgs"), ("pgs:1:2", "pgs"), ("pgs:", "pgs"), ("pgs:100000", "pgs"), ("pgs:nan", "pgs")] {
            let reply = try await harness.get(harness.plainPath("/src.png", options: options, ext: "png"))
            #expect(reply.status == 400, "\(options): \(reply.status)")
            #expect(reply.text.contains("bad option \(name):"), "\(options): \(reply.text)")
        }
        #expect(harness.origin.requestCount("/src.png") == 0)
        let still = try await harness.get(harness.plainPath("/src.png", options: "pgs:3", ext: "png"))
        #expect(still.status == 200, "\(still.text)")
        #expect(try TestImages.decode(still.body).pixelSize == PixelSize(width: 20, height: 10), "a still source has one page")
        let base = try ProcessingOptions.parse(segments: ["w:100"], presets: PresetTable()).canonicalForm
        #expect(try ProcessingOptions.parse(segments: ["w:100", "pgs:2"], presets: PresetTable()).canonicalForm.contains("pgs:2"))
        #expect(try ProcessingOptions.parse(segments: ["w:100", "pgs:2"], presets: PresetTable()).canonicalForm != base)
    }
}
