import Foundation
import Testing
import WebImage
import WebImageServer
import WebImageTesting

/// `format:best`/`@best` (SPEC V-15) over HTTP on loopback: the answer is the smallest
/// candidate that meets the target, checked against asking for every candidate one by one.
@Suite(.timeLimit(.minutes(30))) struct ServiceBestFormatTests {
    static let accept = [("Accept", "image/avif,image/webp,image/*")]
    static let corpus = [
        "jpeg-misc/progressive/3.jpg", "sdwebimage/TestImageStatic.webp", "jpeg-libjpeg-turbo/testorig.jpg",
        "pngsuite/PngSuite.png", "webp-conformance/lossless1.webp", "sdwebimage/TestImage.png",
    ]

    /// The candidates a result of `reference` may take under the default settings.
    static func eligible(_ reference: Image, accept: Bool = true) -> [String] {
        var formats = accept ? ["avif", "webp", "jpg"] : ["jpg"]
        if reference.hasAlpha { formats.removeAll { $0 == "jpg" } }
        if ImageComplexity.measure(reference.pixels) < BestFormatSettings().complexityThreshold { formats.append("png") }
        return formats
    }

    @Test("Given f:best with aq:s2:80, then the answer is the smallest of the candidates each asked for with aq:s2:80", .enabled(if: Corpus.isAvailable))
    func bestIsTheSmallestCandidateMeetingTheTarget() async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        for (index, path) in Self.corpus.enumerated() {
            harness.origin.route("/c\(index)", .ok(try Corpus.data(path), contentType: "application/octet-stream"))
            let geometry = "rs:fit:320:320"
            let reference = try TestImages.decode(try await harness.get(harness.plainPath("/c\(index)", options: geometry, ext: "png")).body)
            var bodies: [(format: String, body: Data, type: String)] = []
            for format in Self.eligible(reference) {
                let aq = format == "png" ? "" : "/aq:s2:80"
                let reply = try await harness.get(harness.plainPath("/c\(index)", options: geometry + aq, ext: format))
                try #require(reply.status == 200, "\(path) as \(format): \(reply.text)")
                bodies.append((format, reply.body, reply.header("Content-Type") ?? ""))
            }
            let smallest = try #require(bodies.min { $0.body.count < $1.body.count })
            let best = try await harness.get(harness.plainPath("/c\(index)", options: "\(geometry)/aq:s2:80/f:best"), headers: Self.accept)
            try #require(best.status == 200, "\(best.text)")
            #expect(best.header("Content-Type") == smallest.type, "\(path): \(bodies.map { "\($0.format) \($0.body.count)" })")
            #expect(best.body == smallest.body, "\(path): best \(best.body.count) bytes; \(bodies.map { "\($0.format) \($0.body.count)" })")
            #expect(best.header("Vary") == "Accept")
            // The extension form is the same request.
            let viaExtension = try await harness.get(harness.plainPath("/c\(index)", options: "\(geometry)/aq:s2:80", ext: "best"), headers: Self.accept)
            #expect(viaExtension.body == best.body)
        }
        let searches = try #require(try await harness.metric("webimage_best_format_searches_total"))
        let encodes = try #require(try await harness.metric("webimage_best_format_encodes_total"))
        print("format:best with aq:s2:80: \(Int(encodes)) encodes for \(Int(searches)) requests")
    }

    @Test("Given f:best without aq, then the smallest of the candidates at their default quality; a client without AVIF/WebP gets neither", .enabled(if: Corpus.isAvailable))
    func bestWithoutSearchAndAccept() async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        harness.origin.route("/p", .ok(try Corpus.data("jpeg-misc/progressive/3.jpg"), contentType: "image/jpeg"))
        let reference = try TestImages.decode(try await harness.get(harness.plainPath("/p", options: "w:300", ext: "png")).body)
        for (accept, allowsModern) in [(Self.accept, true), ([("Accept", "image/jpeg")], false)] {
            var bodies: [Data] = []
            for format in Self.eligible(reference, accept: allowsModern) {
                bodies.append(try await harness.get(harness.plainPath("/p", options: "w:300", ext: format)).body)
            }
            let best = try await harness.get(harness.plainPath("/p", options: "w:300/f:best"), headers: accept)
            #expect(best.status == 200)
            #expect(best.body == bodies.min { $0.count < $1.count }, "\(accept)")
            if !allowsModern { #expect(best.header("Content-Type") == "image/jpeg") }
        }
    }

    @Test("Given @best as the URL's extension, then the answer is f:best's; with best-format-allow-skips an SVG or skip_processing source is answered as it is, without it rendered")
    func extensionAndAllowSkips() async throws {
        let png = try TestImages.png(width: 40, height: 30)
        let svg = Data(##"<svg xmlns="http://www.w3.org/2000/svg" width="20" height="20"><rect width="20" height="20" fill="#0a0"/></svg>"##.utf8)
        let skipping = try await ServiceHarness.start { $0.bestFormat.allowSkips = true }
        defer { Task { await skipping.stop() } }
        skipping.origin.route("/g.png", .ok(png, contentType: "image/png"))
        skipping.origin.route("/a.svg", .ok(svg, contentType: "image/svg+xml"))
        let byOption = try await skipping.get(skipping.plainPath("/g.png", options: "w:20/f:best"), headers: Self.accept)
        let byExtension = try await skipping.get(skipping.plainPath("/g.png", options: "w:20", ext: "best"), headers: Self.accept)
        #expect(byOption.status == 200 && byExtension.status == 200, "\(byExtension.text)")
        #expect(byExtension.body == byOption.body && byExtension.header("Content-Type") == byOption.header("Content-Type"))
        let encodes = try #require(try await skipping.metric("webimage_best_format_encodes_total"))
        #expect(encodes >= 1)
        let skipped = try await skipping.get(skipping.plainPath("/g.png", options: "w:20/skp:png", ext: "best"), headers: Self.accept)
        #expect(skipped.status == 200 && skipped.body == png, "a skip_processing source as it is")
        #expect(skipped.header("Content-Type") == "image/png")
        let vector = try await skipping.get(skipping.plainPath("/a.svg", options: "w:20/f:best"), headers: Self.accept)
        #expect(vector.status == 200 && vector.header("Content-Type") == "image/svg+xml", "\(vector.text)")
        #expect(try await skipping.metric("webimage_best_format_encodes_total") == encodes, "nothing encoded for them")

        let rendering = try await ServiceHarness.start()
        defer { Task { await rendering.stop() } }
        rendering.origin.route("/g.png", .ok(png, contentType: "image/png"))
        let processed = try await rendering.get(rendering.plainPath("/g.png", options: "w:20/skp:png", ext: "best"), headers: Self.accept)
        #expect(processed.status == 200)
        #expect(try TestImages.decode(processed.body).pixelSize.width == 20, "without allow-skips the source is rendered")
    }

    @Test("Given best-format-max-resolution below the result, then one format is encoded without trying the others")
    func maxResolutionPicksOne() async throws {
        let harness = try await ServiceHarness.start { $0.bestFormat.maxResolution = 0.001 }
        defer { Task { await harness.stop() } }
        harness.origin.route("/g.png", .ok(try TestImages.png(width: 120, height: 80), contentType: "image/png"))
        let reply = try await harness.get(harness.plainPath("/g.png", options: "f:best"), headers: Self.accept)
        #expect(reply.status == 200)
        #expect(try await harness.metric("webimage_best_format_encodes_total") == 1)
    }

    @Test("Given best-format-by-default, then a request naming no format gets best; bad best settings are refused")
    func settings() async throws {
        let (configuration, _, _) = try ImageServiceSettings.configuration(from: [
            "best-format-candidates": ["webp,jpg"], "best-format-complexity-threshold": ["2.5"], "best-format-max-resolution": ["12"],
            "best-format-by-default": ["true"], "best-format-allow-skips": ["1"],
        ])
        #expect(configuration.bestFormat.candidates == [.webp, .jpeg])
        #expect(configuration.bestFormat.complexityThreshold == 2.5 && configuration.bestFormat.maxResolution == 12)
        #expect(configuration.bestFormat.byDefault && configuration.bestFormat.allowSkips)
        for bad in [["best-format-candidates": ["tiff"]], ["best-format-candidates": [""]], ["best-format-complexity-threshold": ["nan"]],
                    ["best-format-max-resolution": ["-1"]], ["best-format-by-default": ["maybe"]]] {
            #expect(throws: ImageServiceSettings.Problem.self) { try ImageServiceSettings.configuration(from: bad) }
        }
        let harness = try await ServiceHarness.start { $0.bestFormat.byDefault = true; $0.bestFormat.candidates = [.png, .jpeg] }
        defer { Task { await harness.stop() } }
        harness.origin.route("/flat.png", .ok(try ServiceOutputTests.solid(64, 64, [20, 40, 60, 255]), contentType: "image/png"))
        let reply = try await harness.get(harness.plainPath("/flat.png"))
        #expect(reply.status == 200)
        #expect(reply.header("Content-Type") == "image/png", "a flat image is smaller losslessly")
        #expect(try await harness.metric("webimage_best_format_searches_total") == 1)
        let bad = try await harness.get(harness.plainPath("/flat.png", options: "f:bestest"))
        #expect(bad.status == 400)
    }
}
