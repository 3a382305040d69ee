import Foundation
import Testing
import WebImage
import WebImageServer
import WebImageTesting

/// Chained pipelines (`/-/`, SPEC V-16) over loopback HTTP: each pipeline applies to the
/// previous one's result, as a second request on the first one's output would.
@Suite(.timeLimit(.minutes(3))) struct ServiceChainedPipelinesTests {
    /// A `width`×`height` PNG: the harness's gradient inside a white frame a tenth of the width
    /// wide, so `trim` has a border to remove.
    static func framed(width: Int, height: Int) throws -> Data {
        let inner = TestImages.gradient(width: width, height: height).pixels
        let border = width / 10
        let pixels = PixelBuffer.make(width: width, height: height) { out in
            for y in 0..<height {
                for x in 0..<width {
                    let i = (y * width + x) * 4
                    let framed = x < border || y < border || x >= width - border || y >= height - border
                    for c in 0..<4 { out[i + c] = framed ? 255 : inner.bytes[i + c] }
                }
            }
        }
        return try CodersManager.shared.encode(Image(pixels: pixels, hasAlpha: false), format: .png, options: EncodeOptions())
    }

    @Test("Given a chained request, then its result has the pixels of a second request made on the first one's output", arguments: [
        ("rs:fit:32:32", "c:20:10:nowe/bl:1", false),
        ("rs:fill:50:30/pd:8/bg:ffffff", "t:10", false),
        ("c:40:40:nowe/rot:90", "fl:1:0/w:24", false),
        // imgproxy's examples (on a framed picture): `.../width:500/crop:1000/-/trim:10/...` and
        // `.../rs:fit:500:500/-/trim:10/...`.
        ("width:500/crop:1000", "trim:10", true), ("rs:fit:500:500", "trim:10", true),
    ])
    func sameAsSecondRequest(first: String, second: String, framed: Bool) async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        let source = framed ? try Self.framed(width: 1200, height: 900) : try TestImages.png(width: 64, height: 48)
        harness.origin.route("/src.png", .ok(source, contentType: "image/png"))
        let step = try await harness.get(harness.plainPath("/src.png", options: first, ext: "png"))
        #expect(step.status == 200, "\(step.text)")
        harness.origin.route("/step.png", .ok(step.body, contentType: "image/png"))
        let twice = try await harness.get(harness.plainPath("/step.png", options: second, ext: "png"))
        let chained = try await harness.get(harness.plainPath("/src.png", options: first + "/-/" + second, ext: "png"))
        #expect(twice.status == 200, "\(twice.text)")
        #expect(chained.status == 200, "\(chained.text)")
        guard twice.status == 200, chained.status == 200 else { return }
        let expected = try TestImages.decode(twice.body), got = try TestImages.decode(chained.body)
        #expect(got.pixelSize == expected.pixelSize)
        #expect(got.pixels.bytes == expected.pixels.bytes, "the same pixels as the second request on the first's output")
        let unchained = try await harness.get(harness.plainPath("/src.png", options: first + "/" + second, ext: "png"))
        #expect(unchained.body != chained.body, "the chain differs from the same options in one pipeline")
    }

    @Test("Given imgproxy's preset example, then the preset's pipelines merge with the URL's as its docs show")
    func presetsMerge() throws {
        var presets = PresetTable()
        try presets.define("test", options: "width:300/height:300/-/width:200/height:200/-/width:100/height:200")
        let options = try ProcessingOptions.parse(segments: ["width:400", "-", "preset:test", "width:500", "-", "width:600"], presets: presets)
        let pipelines = [options] + options.chained
        #expect(pipelines.map(\.width) == [400, 500, 600, 100])
        #expect(pipelines.map(\.height) == [0, 300, 200, 200])
        #expect(pipelines[1].presets == ["test"])
    }

    @Test("Request-wide options of a later pipeline are the request's; the chain is part of the canonical form")
    func requestWideOptions() throws {
        let options = try ProcessingOptions.parse(segments: ["w:20", "-", "q:40", "f:webp", "w:10"], presets: PresetTable())
        #expect(options.quality == 40)
        #expect(options.format == .webp)
        #expect(options.width == 20)
        #expect(options.chained.map(\.width) == [10])
        let single = try ProcessingOptions.parse(segments: ["w:20"], presets: PresetTable())
        #expect(single.canonicalForm != options.canonicalForm)
    }

    @Test("Given more pipelines than max-chained-pipelines (also through a preset), then 400 names the limit; at the limit, 200")
    func tooManyPipelines() async throws {
        let harness = try await ServiceHarness.start {
            $0.maxChainedPipelines = 3
            try? $0.presets.define("two", options: "w:30/-/w:20")
        }
        defer { Task { await harness.stop() } }
        harness.origin.route("/src.png", .ok(try TestImages.png(width: 64, height: 48), contentType: "image/png"))
        let atLimit = try await harness.get(harness.plainPath("/src.png", options: "w:40/-/w:30/-/w:20", ext: "png"))
        #expect(atLimit.status == 200, "\(atLimit.text)")
        #expect(try TestImages.decode(atLimit.body).pixelSize.width == 20)
        for options in ["w:40/-/w:30/-/w:20/-/w:10", "w:40/-/w:30/-/pr:two", String(repeating: "-/", count: 3000) + "w:10"] {
            let reply = try await harness.get(harness.plainPath("/src.png", options: options, ext: "png"))
            #expect(reply.status == 400, "\(options.prefix(40)): \(reply.text)")
            #expect(reply.text.contains("max-chained-pipelines"), "\(reply.text)")
        }
        let defaults = try await ServiceHarness.start()
        defer { Task { await defaults.stop() } }
        defaults.origin.route("/src.png", .ok(try TestImages.png(width: 64, height: 48), contentType: "image/png"))
        let nine = try await defaults.get(defaults.plainPath("/src.png", options: Array(repeating: "w:30", count: 9).joined(separator: "/-/"), ext: "png"))
        #expect(nine.status == 400, "the default allows 8: \(nine.text)")
    }
}
