import Foundation
import Testing
import WebImage
import WebImageTesting

@testable import WebImageServer

/// `enforce_thumbnail` (`eth`) on HEIF containers over loopback HTTP: the thumbnail libheif
/// lists for the primary image is decoded instead of it. The corpus's `TestImage.heif` is a
/// 1440×960 image with one 240×160 thumbnail; `TestImage.heic` has none; HEIC and AVIF files
/// with thumbnails are also written in the test by libheif's encoders.
@Suite(.serialized, .timeLimit(.minutes(3))) struct ServiceHEIFThumbnailTests {
    @Test(
        "Given eth:1 on a HEIF with a thumbnail, then the thumbnail is the source, decoded once; without eth the main image",
        .enabled(if: Corpus.isAvailable))
    func thumbnailUsed() async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        harness.origin.route("/photo.heif", .ok(try Corpus.data("sdwebimage/TestImage.heif"), contentType: "image/heif"))
        harness.origin.route("/plain.heic", .ok(try Corpus.data("sdwebimage/TestImage.heic"), contentType: "image/heic"))
        for (path, options, width, height) in [
            ("/photo.heif", "eth:1", 240, 160), ("/photo.heif", "eth:1/w:120", 120, 80), ("/photo.heif", "eth:0", 1440, 960),
            ("/photo.heif", "w:240", 240, 160), ("/plain.heic", "eth:1", 1440, 960),
        ] {
            let before = harness.service.decodeCount
            let reply = try await harness.get(harness.plainPath(path, options: options, ext: "png"))
            #expect(reply.status == 200, "\(path) \(options): \(reply.text)")
            guard reply.status == 200 else { continue }
            #expect(harness.service.decodeCount == before + 1, "\(options)")
            #expect(try TestImages.decode(reply.body).pixelSize == PixelSize(width: width, height: height), "\(path) \(options)")
        }
        // The thumbnail looks like the main image shrunk to its size.
        let thumbnail = try TestImages.decode(try await harness.get(harness.plainPath("/photo.heif", options: "eth:1", ext: "png")).body)
        let shrunk = try TestImages.decode(try await harness.get(harness.plainPath("/photo.heif", options: "w:240", ext: "png")).body)
        let difference = try #require(PixelDifference.between(thumbnail.pixels, shrunk.pixels))
        #expect(difference.psnr >= 20, "\(difference)")
    }

    @Test("Given the HEIF coder, then it finds the thumbnail libheif lists, and none where there is none", .enabled(if: Corpus.isAvailable))
    func coder() throws {
        let thumbnail = try #require(try HEIFCoder().decodeThumbnail(try Corpus.data("sdwebimage/TestImage.heif"), options: DecodeOptions()))
        #expect(thumbnail.pixelSize == PixelSize(width: 240, height: 160))
        #expect(try HEIFCoder().decodeThumbnail(try Corpus.data("sdwebimage/TestImage.heic"), options: DecodeOptions()) == nil)
        #expect(try HEIFCoder().decodeThumbnail(try Corpus.data("generated-valid/still_64x48.heic"), options: DecodeOptions()) == nil)
        // Over the limits, nothing is decoded.
        var tight = DecodeOptions()
        tight.limits.maxPixelCount = 100
        #expect(throws: WebImageError.self) { try HEIFCoder().decodeThumbnail(try Corpus.data("sdwebimage/TestImage.heif"), options: tight) }
    }

    @Test(
        "Given eth:1 on HEIC and AVIF files written with a thumbnail, then the thumbnail is the source",
        arguments: [HEIFThumbnailFixture.Kind.heic, .avif])
    func writtenThumbnail(_ kind: HEIFThumbnailFixture.Kind) async throws {
        try #require(HEIFThumbnailFixture.canEncode(kind), "libheif has no encoder for \(kind)")
        if kind == .avif { try #require(HEIFCoder.readsAVIF, "libheif decodes no AV1 here") }
        let data = try HEIFThumbnailFixture.make(kind, width: 320, height: 240, thumbnailSide: 80)
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        let path = kind == .heic ? "/photo.heic" : "/photo.avif"
        harness.origin.route(path, .ok(data, contentType: kind == .heic ? "image/heic" : "image/avif"))
        for (options, width, height) in [("eth:1", 80, 60), ("eth:1/w:40", 40, 30), ("eth:0", 320, 240)] {
            let before = harness.service.decodeCount
            let reply = try await harness.get(harness.plainPath(path, options: options, ext: "png"))
            #expect(reply.status == 200, "\(kind) \(options): \(reply.text)")
            guard reply.status == 200 else { continue }
            #expect(harness.service.decodeCount == before + 1)
            let image = try TestImages.decode(reply.body)
            #expect(image.pixelSize == PixelSize(width: width, height: height), "\(kind) \(options)")
            // The ramp: red rises left to right over blue.
            let left = image.pixels.pixel(x: 1, y: height / 2), right = image.pixels.pixel(x: width - 2, y: height / 2)
            #expect(left.r < 60 && right.r > 190 && left.b > 150, "\(kind) \(options): \(left) \(right)")
        }
    }
}
