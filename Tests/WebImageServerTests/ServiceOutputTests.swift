import Foundation
import NIOHTTP1
import Testing
import WebImage
import WebImageServer
import WebImageTesting

/// V-6/V-7 leftovers over HTTP on loopback: the fallback image, `raw` with ETag/304/HEAD,
/// smart gravity's crop position, and what `strip_metadata:0` keeps.
@Suite(.timeLimit(.minutes(2))) struct ServiceOutputTests {
    /// A `width`×`height` solid image.
    static func solid(_ width: Int, _ height: Int, _ rgba: [UInt8]) throws -> Data {
        try ServiceFilterTests.encode(width, height) { _, _ in rgba }
    }

    @Test func fallbackImageAnswersSourceFailuresWith200() async throws {
        let fallback = try Self.solid(40, 20, [255, 0, 0, 255])
        let harness = try await ServiceHarness.start { $0.fallbackImage = fallback; $0.fallbackImageTTL = 60 }
        defer { Task { await harness.stop() } }
        harness.origin.route("/broken.png", .status(500))
        harness.origin.route("/text.png", .ok(Data("not an image".utf8), contentType: "image/png"))
        for source in ["/missing.png", "/broken.png", "/text.png"] {
            let path = harness.plainPath(source, options: "w:20", ext: "png")
            let reply = try await harness.get(path)
            #expect(reply.status == 200, "\(source): \(reply.status) \(reply.text)")
            #expect(reply.header("Fallback-Image") == "1")
            #expect(reply.header("Cache-Control") == "public, max-age=60")
            #expect(reply.header("ETag") == nil, "a fallback answer has no validator")
            let image = try TestImages.decode(reply.body)
            #expect(image.pixelSize == PixelSize(width: 20, height: 10), "processed with the request's options")
            #expect(image.pixels.pixel(x: 5, y: 5) == RGBA(r: 255, g: 0, b: 0, a: 255))
        }
        // Not remembered: once the source is back, the next request gets it.
        harness.origin.route("/missing.png", .ok(try Self.solid(40, 20, [0, 0, 255, 255]), contentType: "image/png"))
        let back = try await harness.get(harness.plainPath("/missing.png", options: "w:20", ext: "png"))
        #expect(back.status == 200 && back.header("Fallback-Image") == nil)
        #expect(try TestImages.decode(back.body).pixels.pixel(x: 5, y: 5) == RGBA(r: 0, g: 0, b: 255, a: 255))
        // Refusals are not source failures: no fallback.
        let refused = try await harness.get(harness.plainPath("/missing.png", options: "nonsense:1"))
        #expect(refused.status == 400)
    }

    @Test func fallbackStatusZeroKeepsTheErrorStatus() async throws {
        let fallback = try Self.solid(8, 8, [0, 255, 0, 255])
        let harness = try await ServiceHarness.start { $0.fallbackImage = fallback; $0.fallbackImageStatus = 0 }
        defer { Task { await harness.stop() } }
        let reply = try await harness.get(harness.plainPath("/missing.png", ext: "png"))
        #expect(reply.status == 404)
        #expect(reply.header("Content-Type") == "image/png")
        #expect(reply.header("Cache-Control") == "public, max-age=\(harness.service.configuration.ttl)")
        #expect(try TestImages.decode(reply.body).pixelSize == PixelSize(width: 8, height: 8))
    }

    @Test func fallbackSettingsReadTheFile() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-fallback-\(UUID().uuidString).png")
        defer { try? FileManager.default.removeItem(at: file) }
        let png = try Self.solid(4, 4, [1, 2, 3, 255])
        try png.write(to: file)
        let (configuration, _, _) = try ImageServiceSettings.configuration(from: [
            "fallback-image": [file.path], "fallback-image-status": ["0"], "fallback-image-ttl": ["30"],
        ])
        #expect(configuration.fallbackImage == png)
        #expect(configuration.fallbackImageStatus == 0 && configuration.fallbackImageTTL == 30)
        #expect(throws: ImageServiceSettings.Problem.self) { try ImageServiceSettings.configuration(from: ["fallback-image": ["/nonexistent/x.png"]]) }
        try Data("text".utf8).write(to: file)
        #expect(throws: ImageServiceSettings.Problem.self) { try ImageServiceSettings.configuration(from: ["fallback-image": [file.path]]) }
        #expect(throws: ImageServiceSettings.Problem.self) { try ImageServiceSettings.configuration(from: ["fallback-image-status": ["99"]]) }
    }

    @Test func rawAnswersCarryValidatorsAnd304() async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        let png = try TestImages.png(width: 20, height: 10)
        harness.origin.route("/src.png", .ok(png, contentType: "image/png"))
        harness.origin.route("/text", .ok(Data("hello".utf8), contentType: "text/plain"))
        let path = harness.plainPath("/src.png", options: "raw:1")
        let first = try await harness.get(path)
        #expect(first.status == 200 && first.body == png)
        #expect(first.header("Content-Type") == "image/png")
        #expect(first.header("Content-Length") == String(png.count))
        #expect(first.header("Vary") == nil, "raw does not negotiate")
        let etag = try #require(first.header("ETag"))
        let again = try await harness.get(path, headers: [("If-None-Match", etag)])
        #expect(again.status == 304 && again.body.isEmpty)
        #expect(again.header("ETag") == etag)
        let head = try await harness.get(path, method: .HEAD)
        #expect(head.status == 200 && head.body.isEmpty && head.header("Content-Length") == String(png.count))
        // The same checks as any source: not an image → 415.
        #expect(try await harness.get(harness.plainPath("/text", options: "raw:1")).status == 415)
        #expect(harness.service.decodeCount == 0, "raw decodes nothing")
    }

    @Test func smartGravityCropsOntoTheDetail() async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        // A flat 300×100 gray image with a 40×40 checkerboard at x 230..<270, y 30..<70.
        let source = try ServiceFilterTests.encode(300, 100) { x, y in
            if (230..<270).contains(x), (30..<70).contains(y) {
                return (x / 4 + y / 4) % 2 == 0 ? [0, 0, 0, 255] : [255, 255, 255, 255]
            }
            return [128, 128, 128, 255]
        }
        harness.origin.route("/detail.png", .ok(source, contentType: "image/png"))
        func detailColumns(_ gravity: String) async throws -> ClosedRange<Int>? {
            let reply = try await harness.get(harness.plainPath("/detail.png", options: "rs:fill:100:100/g:\(gravity)", ext: "png"))
            let image = try TestImages.decode(reply.body)
            #expect(image.pixelSize == PixelSize(width: 100, height: 100))
            let busy = (0..<100).filter { x in
                let shades = (0..<100).map { image.pixels.pixel(x: x, y: $0).r }
                return (shades.max() ?? 0) - (shades.min() ?? 0) > 100
            }
            guard let first = busy.first, let last = busy.last else { return nil }
            return first...last
        }
        // The square keeps x 200..<300 of the source: the checkerboard lands at 30..<70.
        let smart = try #require(try await detailColumns("sm"), "the smart crop holds the detail")
        #expect(abs(smart.lowerBound - 30) <= 2 && abs(smart.upperBound - 69) <= 2, "\(smart)")
        #expect(try await detailColumns("ce") == nil, "the center crop (x 100..<200) misses it")
    }

    @Test func stripMetadataZeroIsAcceptedAndOutputsCarryNoMetadata() async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        // EXIF + ICC in one, XMP in the other; markers every output is checked for.
        let markers = ["Exif", "http://ns.adobe.com/xap", "ICC_PROFILE"].map { Data($0.utf8) }
        for (name, corpusPath) in [("/exif-icc.jpg", "jpeg-misc/portrait_2.jpg"), ("/xmp.jpg", "jpeg-misc/exif-xmp-metadata.jpg")] {
            let jpeg = try Corpus.data(corpusPath)
            #expect(markers.contains { jpeg.range(of: $0) != nil }, "\(corpusPath) carries metadata")
            harness.origin.route(name, .ok(jpeg, contentType: "image/jpeg"))
            for strip in ["sm:1", "sm:0"] {
                for ext in ["jpg", "webp", "png"] {
                    let reply = try await harness.get(harness.plainPath(name, options: "\(strip)/w:4", ext: ext))
                    #expect(reply.status == 200, "\(name) \(strip) \(ext): \(reply.status) \(reply.text)")
                    for marker in markers {
                        #expect(reply.body.range(of: marker) == nil, "\(name) \(strip) \(ext): \(String(decoding: marker, as: UTF8.self))")
                    }
                }
            }
        }
        // Orientation is applied to the pixels (the tag itself is not kept), with sm:0 too.
        harness.origin.route("/rotated.jpg", .ok(try Corpus.data("exif-orientation/Landscape_6.jpg"), contentType: "image/jpeg"))
        let upright = try await harness.get(harness.plainPath("/rotated.jpg", options: "sm:0/w:60", ext: "png"))
        #expect(try TestImages.decode(upright.body).pixelSize == PixelSize(width: 60, height: 45))
    }
}
