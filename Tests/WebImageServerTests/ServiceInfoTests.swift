import Foundation
import Testing
import WebImage
import WebImageTesting

@testable import WebImageServer

/// `/info` (SPEC V-14) over loopback HTTP: metadata from the header, placeholders from a small
/// decode, signed and cached like images.
@Suite(.serialized, .timeLimit(.minutes(5))) struct ServiceInfoTests {
    /// The JSON `/info` answers.
    struct InfoJSON: Decodable {
        struct Color: Decodable {
            var hex: String
            var share: Double
        }
        var width: Int
        var height: Int
        var format: String
        var frames: Int
        var duration: Int
        var loop_count: Int?
        var orientation: Int
        var color_space: String
        var color_profile: String?
        var bytes: Int
        var blurhash: String
        var blurhash_components: String
        var thumbhash: String
        var dominant_colors: [Color]
    }

    /// `/info/insecure/{options}/plain/{origin URL of path}`.
    static func infoPath(_ harness: ServiceHarness, _ originPath: String, options: String = "") -> String {
        "/info" + harness.plainPath(originPath, options: options)
    }

    /// What ``ImagePlaceholder/summary(of:blurHashComponents:colorCount:)`` gives for the small
    /// decode of `data` (first frame, thumbnail ≤ 400 px, sRGB).
    static func expectedSummary(_ data: Data, components: BlurHashComponents? = nil) throws -> PlaceholderSummary {
        var options = DecodeOptions()
        options.colorManagement = .convertToSRGB
        let image = try CodersManager.shared.decode(data, options: ImagePlaceholder.decodeOptions(options))
        return ImagePlaceholder.summary(of: image, blurHashComponents: components)
    }

    static func decode(_ reply: ServiceHarness.Reply) throws -> InfoJSON {
        try JSONDecoder().decode(InfoJSON.self, from: reply.body)
    }

    struct Case: Sendable, CustomStringConvertible {
        var path: String
        var contentType: String
        var format: String
        var width: Int, height: Int
        var frames: Int
        var orientation: Int
        var description: String { path }
    }

    static let cases: [Case] = [
        Case(path: "pngsuite/basn6a08.png", contentType: "image/png", format: "png", width: 32, height: 32, frames: 1, orientation: 1),
        Case(path: "generated-valid/anim_6f_loop3_64x48.gif", contentType: "image/gif", format: "gif", width: 64, height: 48, frames: 6, orientation: 1),
        Case(path: "sdwebimage/TestImageAnimated.webp", contentType: "image/webp", format: "webp", width: 990, height: 1050, frames: 8, orientation: 1),
        Case(path: "exif-orientation/Landscape_6.jpg", contentType: "image/jpeg", format: "jpeg", width: 600, height: 450, frames: 1, orientation: 6),
    ]

    @Test("Given a corpus image, when /info is asked, then its JSON has the header's metadata and the small decode's placeholders", arguments: cases)
    func infoFields(_ item: Case) async throws {
        try #require(Corpus.isAvailable)
        let data = try Corpus.data(item.path)
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        harness.origin.route("/source", .ok(data, contentType: item.contentType))
        let reply = try await harness.get(Self.infoPath(harness, "/source"))
        #expect(reply.status == 200, "\(reply.text)")
        #expect(reply.header("Content-Type") == "application/json")
        #expect(reply.header("ETag") != nil)
        let info = try Self.decode(reply)
        #expect(info.format == item.format)
        #expect(info.width == item.width && info.height == item.height)
        #expect(info.frames == item.frames)
        #expect(info.orientation == item.orientation)
        #expect(info.bytes == data.count)
        #expect(info.color_space == "rgb")
        if item.frames > 1 {
            #expect(info.duration > 100)
            #expect(info.loop_count != nil)
        } else {
            #expect(info.duration == 0)
            #expect(info.loop_count == nil)
        }
        let expected = try Self.expectedSummary(data)
        #expect(info.blurhash == expected.blurHash)
        #expect(info.thumbhash == expected.thumbHash)
        #expect(info.blurhash_components == expected.blurHashComponents.description)
        #expect(info.dominant_colors.map(\.hex) == expected.dominantColors.map(\.hex))
        #expect(info.dominant_colors.count <= 5 && !info.dominant_colors.isEmpty)
        #expect(info.dominant_colors.allSatisfy { $0.share > 0 && $0.share <= 1 && $0.hex.count == 7 })
    }

    @Test("Given a GIF of 5 frames of 100 ms looping forever, when /info is asked, then duration and loop count come from its frame table")
    func animationTiming() async throws {
        let data = try TestImages.animatedGIF(frames: 5, delay: 0.1)
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        harness.origin.route("/anim.gif", .ok(data, contentType: "image/gif"))
        let info = try Self.decode(try await harness.get(Self.infoPath(harness, "/anim.gif")))
        #expect(info.frames == 5)
        #expect(info.duration == 500)
        #expect(info.loop_count == 0)
    }

    @Test("Given bhc in the path, when /info is asked, then the BlurHash has those components; bad values answer 400 naming the option")
    func blurHashComponentsOption() async throws {
        let data = try TestImages.png(width: 120, height: 60)
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        harness.origin.route("/src.png", .ok(data, contentType: "image/png"))
        let automatic = try Self.decode(try await harness.get(Self.infoPath(harness, "/src.png")))
        #expect(automatic.blurhash_components == "4x2")
        let chosen = try await harness.get(Self.infoPath(harness, "/src.png", options: "bhc:5:3"))
        let info = try Self.decode(chosen)
        #expect(info.blurhash_components == "5x3")
        let components = try #require(BlurHashComponents(x: 5, y: 3))
        #expect(info.blurhash == (try Self.expectedSummary(data, components: components)).blurHash)
        let long = try Self.decode(try await harness.get(Self.infoPath(harness, "/src.png", options: "blurhash_components:2:2")))
        #expect(long.blurhash_components == "2x2")
        for bad in ["bhc:0:3", "bhc:4:10", "bhc:4", "blurhash_components:a:b"] {
            let reply = try await harness.get(Self.infoPath(harness, "/src.png", options: bad))
            #expect(reply.status == 400, "\(bad)")
            #expect(reply.text.contains(String(bad.prefix { $0 != ":" })), "\(bad): \(reply.text)")
        }
        // The option is /info's only: an image URL refuses it.
        #expect(try await harness.get(harness.plainPath("/src.png", options: "bhc:4:3")).status == 400)
    }

    @Test("Given signing on, when /info has a bad signature, then 403; a good one answers 200")
    func signed() async throws {
        let pair = try #require(URLSigner.KeyPair(hexKey: "736563726574", hexSalt: "68656C6C6F"))
        let harness = try await ServiceHarness.start { $0.keyPairs = [pair] }
        defer { Task { await harness.stop() } }
        harness.origin.route("/src.png", .ok(try TestImages.png(width: 32, height: 32), contentType: "image/png"))
        let signedPath = String(harness.plainPath("/src.png", options: "bhc:3:3").dropFirst("/insecure".count))
        let good = URLSigner(keyPairs: [pair]).sign(signedPath)
        #expect(try await harness.get("/info/\(good)\(signedPath)").status == 200)
        #expect(try await harness.get("/info/insecure\(signedPath)").status == 403)
        #expect(try await harness.get("/info/AAAA\(good.dropFirst(4))\(signedPath)").status == 403)
        #expect(harness.origin.requestCount("/src.png") == 1)
    }

    @Test("Given /info answered once, when asked again, then the cache answers: no fetch, no decode, and If-None-Match gets 304")
    func cachedAndConditional() async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        harness.origin.route("/src.png", .ok(try TestImages.png(width: 64, height: 48), contentType: "image/png"))
        let path = Self.infoPath(harness, "/src.png")
        let first = try await harness.get(path)
        #expect(first.status == 200)
        let etag = try #require(first.header("ETag"))
        let (fetches, decodes) = (harness.origin.requestCount("/src.png"), harness.service.decodeCount)
        #expect(decodes == 1)
        let second = try await harness.get(path)
        #expect(second.status == 200)
        #expect(second.body == first.body)
        let notModified = try await harness.get(path, headers: [("If-None-Match", etag)])
        #expect(notModified.status == 304)
        #expect(notModified.body.isEmpty)
        #expect(harness.origin.requestCount("/src.png") == fetches)
        #expect(harness.service.decodeCount == decodes)
        // The base64 form of the same source: the same info, from the cache.
        let encoded = Base64URL.encode(Array(harness.origin.url("/src.png").absoluteString.utf8))
        let base64 = try await harness.get("/info/insecure/\(encoded)")
        #expect(base64.status == 200, "\(base64.text)")
        #expect(base64.body == first.body)
        #expect(harness.service.decodeCount == decodes)
        // The image result of the same source has another key and ETag.
        let image = try await harness.get(harness.plainPath("/src.png", ext: "png"))
        #expect(image.status == 200)
        #expect(image.header("ETag") != etag)
        #expect(harness.service.decodeCount == decodes + 1)
    }

    @Test("Given a 12 MP JPEG, when /info is asked, then it is decoded once at 1/8 scale, never at full size")
    func neverFullSize() async throws {
        let width = 4000, height = 3000
        let pixels = PixelBuffer.make(width: width, height: height) { out in
            for index in stride(from: 0, to: out.count, by: 4) {
                let pixel = index / 4
                out[index] = UInt8(truncatingIfNeeded: pixel % width / 16)
                out[index + 1] = UInt8(truncatingIfNeeded: pixel / width / 12)
                out[index + 2] = 90
                out[index + 3] = 255
            }
        }
        let data = try CodersManager.shared.encode(Image(pixels: pixels, hasAlpha: false), format: .jpeg, options: EncodeOptions(quality: 0.8))
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        harness.origin.route("/big.jpg", .ok(data, contentType: "image/jpeg"))
        let reply = try await harness.get(Self.infoPath(harness, "/big.jpg"))
        #expect(reply.status == 200, "\(reply.text)")
        let info = try Self.decode(reply)
        #expect(info.width == width && info.height == height)
        #expect(harness.service.decodeCount == 1)
        let metrics = try await harness.get("/metrics").text
        #expect(metrics.contains("webimage_decodes_total{scale=\"1/8\"} 1"), "\(metrics)")
        #expect(!metrics.contains("webimage_decodes_total{scale=\"1\"}"), "\(metrics)")
        // The placeholders are those of that 500×375 decode.
        let small = try JPEGCoder().decode(data, scaleDenominator: 8, options: ImagePlaceholder.decodeOptions())
        #expect(small.pixelSize == PixelSize(width: 500, height: 375))
        let expected = ImagePlaceholder.summary(of: small)
        #expect(info.blurhash == expected.blurHash)
        #expect(info.thumbhash == expected.thumbHash)
    }
}
