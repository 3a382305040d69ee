import Foundation
import Testing
import WebImage
import WebImageServer
import WebImageTesting

/// `zoom`, `min-width`, `min-height`, `extend_aspect_ratio` and the device-pixel ratio capped
/// where it would need the source enlarged, as imgproxy computes them, over loopback HTTP.
@Suite(.timeLimit(.minutes(2))) struct ServiceGeometryOptionsTests {
    /// Fetches `/src.png` (200×100) with each case's options and checks the result's size.
    private func expectSizes(_ cases: [(String, Int, Int)]) async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        harness.origin.route("/src.png", .ok(try TestImages.png(width: 200, height: 100), contentType: "image/png"))
        for (options, width, height) in cases {
            let reply = try await harness.get(harness.plainPath("/src.png", options: options, ext: "png"))
            #expect(reply.status == 200, "\(options): \(reply.text)")
            guard reply.status == 200 else { continue }
            let image = try TestImages.decode(reply.body)
            #expect(image.width == width && image.height == height, "\(options): got \(image.pixelSize)")
        }
    }

    @Test("Given dpr without enlarge, when the scaled result would need the source enlarged, then the ratio is capped")
    func dprIsCapped() async throws {
        try await expectSizes([
            ("rs:fill:26:100/g:no:5/dpr:2", 26, 100),
            ("w:500/h:500/ex:1:ea:5/dpr:2", 500, 500),
            ("w:50/dpr:2", 100, 50),
            ("w:150/dpr:2", 200, 100),
            ("w:150/dpr:2/el:1", 300, 150),
            ("dpr:2", 200, 100),
            ("dpr:0.5", 100, 50),
        ])
    }

    @Test("Given zoom, then the size is multiplied like dpr, on each axis when two are given, never enlarging without enlarge")
    func zoom() async throws {
        try await expectSizes([
            ("z:0.5", 100, 50),
            ("zoom:0.5", 100, 50),
            ("w:100/z:0.5", 50, 25),
            ("w:50/z:2", 100, 50),
            ("w:50/z:2/dpr:2", 200, 100),
            ("w:100/z:2", 200, 100),
            ("z:1.5:0.5/el:1", 300, 50),
            ("rs:force:100:100/z:1:0.5", 100, 50),
        ])
    }

    @Test("Given min-width or min-height, then the scaled image is at least that large and cropped to a requested size")
    func minimumSizes() async throws {
        try await expectSizes([
            ("h:25/mw:100", 100, 25),
            ("h:25/min-width:100", 100, 25),
            ("w:40/mh:50", 40, 50),
            ("w:40/min-height:50", 40, 50),
            ("mw:400", 400, 200),
            ("w:100/mw:50", 100, 50),
            ("mh:50", 200, 100),
        ])
    }

    @Test("Given extend_aspect_ratio, then the result is extended to the requested ratio, not to the requested size")
    func extendAspectRatio() async throws {
        try await expectSizes([
            ("rs:fit:400:400/exar:1", 200, 200),
            ("rs:fit:400:400/extend_aspect_ratio:1", 200, 200),
            ("rs:fit:400:400/extend_ar:1:no", 200, 200),
            ("rs:fit:400:200/exar:1", 200, 100),
            ("rs:fit:100:300/exar:1", 100, 300),
            ("rs:fill:400:400/exar:1", 200, 200),
            ("rs:fit:400:400/ex:1/exar:1", 400, 400),
            ("w:400/exar:1", 200, 100),
            ("rs:fit:400:400/exar:0", 200, 100),
        ])
    }

    @Test("Given extend_aspect_ratio with a gravity, then the image sits on that side of the background")
    func extendAspectRatioGravity() async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        harness.origin.route("/src.png", .ok(try TestImages.png(width: 200, height: 100), contentType: "image/png"))
        for (gravity, imageRow, backgroundRow) in [("no", 50, 150), ("so", 150, 50)] {
            let reply = try await harness.get(harness.plainPath("/src.png", options: "rs:fit:400:400/exar:1:\(gravity)/bg:ff0000", ext: "png"))
            #expect(reply.status == 200, "\(reply.text)")
            let image = try TestImages.decode(reply.body)
            #expect(image.pixelSize == PixelSize(width: 200, height: 200))
            #expect(image.pixels.pixel(x: 100, y: imageRow).b == 64, "\(gravity)")
            #expect(image.pixels.pixel(x: 100, y: backgroundRow) == RGBA(r: 255, g: 0, b: 0), "\(gravity)")
        }
    }

    @Test("Given bad arguments to the new options, then 400 names the option")
    func badArguments() async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        harness.origin.route("/src.png", .ok(try TestImages.png(width: 200, height: 100), contentType: "image/png"))
        for (options, name) in [
            ("z:0", "z"), ("zoom:-1", "zoom"), ("z:abc", "z"), ("z:1:2:3", "z"), ("z:1000", "z"),
            ("mw:-1", "mw"), ("min-width:x", "min-width"), ("mh:99999", "mh"), ("min-height:1:2", "min-height"),
            ("exar:maybe", "exar"), ("exar:1:sm", "exar"), ("extend_aspect_ratio:1:xx", "extend_aspect_ratio"),
        ] {
            let reply = try await harness.get(harness.plainPath("/src.png", options: options, ext: "png"))
            #expect(reply.status == 400, "\(options): \(reply.status)")
            #expect(reply.text.contains("bad option \(name):"), "\(options): \(reply.text)")
        }
        #expect(harness.origin.requestCount("/src.png") == 0)
    }

    @Test("Given the new options, then each changes the ETag and a default value does not")
    func canonicalForm() throws {
        let base = try ProcessingOptions.parse(segments: ["w:100"], presets: PresetTable()).canonicalForm
        for segment in ["z:2", "mw:10", "mh:10", "exar:1"] {
            #expect(try ProcessingOptions.parse(segments: ["w:100", segment], presets: PresetTable()).canonicalForm != base, "\(segment)")
        }
        for segment in ["z:1", "mw:0", "mh:0", "exar:0"] {
            #expect(try ProcessingOptions.parse(segments: ["w:100", segment], presets: PresetTable()).canonicalForm == base, "\(segment)")
        }
    }
}
