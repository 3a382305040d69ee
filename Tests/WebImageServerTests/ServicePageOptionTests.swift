import Foundation
import Testing
import WebImage
import WebImageServer
import WebImageTesting

/// `page` (`pg`): one page of a PDF or TIFF source, or one frame of an animated one, as a still
/// result, over loopback HTTP.
@Suite(.timeLimit(.minutes(2))) struct ServicePageOptionTests {
    /// A 2-page TIFF, 30×20 each: the first page all red, the second all blue.
    private func twoPageTIFF() throws -> Data {
        let red = [UInt8](repeating: 0, count: 30 * 20 * 3).enumerated().map { $0.offset % 3 == 0 ? 255 : 0 }.map(UInt8.init)
        let blue = [UInt8](repeating: 0, count: 30 * 20 * 3).enumerated().map { $0.offset % 3 == 2 ? 255 : 0 }.map(UInt8.init)
        return try TIFFTestWriter.write([
            TIFFTestPage(width: 30, height: 20, samples: red),
            TIFFTestPage(width: 30, height: 20, samples: blue),
        ])
    }

    @Test("Given page on an animated GIF, then the result is that frame alone, decoded once")
    func animatedFrame() async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        harness.origin.route("/anim.gif", .ok(try TestImages.animatedGIF(frames: 4), contentType: "image/gif"))
        for (options, shade) in [("pg:2", 170), ("page:0", 0), ("pg:3", 255)] {
            let reply = try await harness.get(harness.plainPath("/anim.gif", options: options, ext: "gif"))
            #expect(reply.status == 200, "\(options): \(reply.text)")
            guard reply.status == 200 else { continue }
            let image = try TestImages.decode(reply.body)
            #expect(image.frames.count == 1, "\(options)")
            #expect(image.pixelSize == PixelSize(width: 40, height: 30), "\(options)")
            #expect(abs(Int(image.pixels.pixel(x: 20, y: 15).r) - shade) <= 8, "\(options): \(image.pixels.pixel(x: 20, y: 15))")
        }
        #expect(harness.service.decodeCount == 3)
        let whole = try await harness.get(harness.plainPath("/anim.gif", options: "w:40", ext: "gif"))
        #expect(try TestImages.decode(whole.body).frames.count == 4, "without page the animation is kept")
    }

    @Test("Given page on a PDF or a TIFF, then the result is that page")
    func documentPages() async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        harness.origin.route("/doc.pdf", .ok(TestPDF.twoPages, contentType: "application/pdf"))
        harness.origin.route("/doc.tif", .ok(try twoPageTIFF(), contentType: "image/tiff"))
        let first = try await harness.get(harness.plainPath("/doc.pdf", options: "pg:0", ext: "png"))
        #expect(first.status == 200, "\(first.text)")
        #expect(try TestImages.decode(first.body).pixelSize == PixelSize(width: 200, height: 100))
        let second = try await harness.get(harness.plainPath("/doc.pdf", options: "pg:1", ext: "png"))
        #expect(second.status == 200, "\(second.text)")
        let page = try TestImages.decode(second.body)
        #expect(page.pixelSize == PixelSize(width: 100, height: 300))
        #expect(page.pixels.pixel(x: 50, y: 150) == RGBA(r: 0, g: 0, b: 255))
        for (options, expected) in [("pg:0", RGBA(r: 255, g: 0, b: 0)), ("pg:1", RGBA(r: 0, g: 0, b: 255))] {
            let reply = try await harness.get(harness.plainPath("/doc.tif", options: options, ext: "png"))
            #expect(reply.status == 200, "\(options): \(reply.text)")
            guard reply.status == 200 else { continue }
            let image = try TestImages.decode(reply.body)
            #expect(image.frames.count == 1)
            #expect(image.pixels.pixel(x: 15, y: 10) == expected, "\(options)")
        }
    }

    @Test("Given a page past the last, then 422 says how many pages the source has")
    func pastTheEnd() async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        harness.origin.route("/anim.gif", .ok(try TestImages.animatedGIF(frames: 3), contentType: "image/gif"))
        harness.origin.route("/doc.pdf", .ok(TestPDF.twoPages, contentType: "application/pdf"))
        harness.origin.route("/src.png", .ok(try TestImages.png(width: 20, height: 10), contentType: "image/png"))
        let gif = try await harness.get(harness.plainPath("/anim.gif", options: "pg:5", ext: "png"))
        #expect(gif.status == 422)
        #expect(gif.text.contains("page 5 is past the last page: the source has 3"), "\(gif.text)")
        let still = try await harness.get(harness.plainPath("/src.png", options: "pg:1", ext: "png"))
        #expect(still.status == 422)
        #expect(still.text.contains("the source has 1"), "\(still.text)")
        let pdf = try await harness.get(harness.plainPath("/doc.pdf", options: "pg:2", ext: "png"))
        #expect(pdf.status == 422, "\(pdf.text)")
        #expect(pdf.text.contains("page 2"), "\(pdf.text)")
    }

    @Test("Given bad page arguments, then 400 names the option; page changes the ETag only when given")
    func badArgumentsAndCanonicalForm() async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        harness.origin.route("/src.png", .ok(try TestImages.png(width: 20, height: 10), contentType: "image/png"))
        for (options, name) in [("pg:-1", "pg"), ("page:x", "page"), ("pg:1:2", "pg"), ("pg:", "pg"), ("pg:100000", "pg")] {
            let reply = try await harness.get(harness.plainPath("/src.png", options: options, ext: "png"))
            #expect(reply.status == 400, "\(options): \(reply.status)")
            #expect(reply.text.contains("bad option \(name):"), "\(options): \(reply.text)")
        }
        #expect(harness.origin.requestCount("/src.png") == 0)
        let base = try ProcessingOptions.parse(segments: ["w:100"], presets: PresetTable()).canonicalForm
        #expect(try ProcessingOptions.parse(segments: ["w:100", "pg:0"], presets: PresetTable()).canonicalForm != base)
        #expect(try ProcessingOptions.parse(segments: ["w:100", "pg:1"], presets: PresetTable()).canonicalForm.contains("pg:1"))
    }
}
