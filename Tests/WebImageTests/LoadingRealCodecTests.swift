import Foundation
import Testing
import WebImage
import WebImageTesting

/// The downloader with the built-in codecs (`CodersManager.shared`) on corpus files.
@Suite("Downloader with the built-in codecs", .enabled(if: Corpus.isAvailable))
struct LoadingRealCodecTests {
    @Test("Given a progressive JPEG held half-way, when loaded with progressiveLoad, then partial images precede a final image equal to a direct decode")
    func progressiveJPEG() async throws {
        let bytes = try Corpus.data("jpeg-misc/progressive/3.jpg")
        var configuration = ImageDownloaderConfiguration()
        configuration.downloadTimeout = TestTimeouts.download
        configuration.maximumDownloadDuration = TestTimeouts.request
        configuration.minimumProgressInterval = 0
        try await withServerAndDownloader(configuration: configuration) { server, downloader in
            // The first half (its first scans), then the rest once a partial image has arrived.
            let rest = HTTPTestServer.Gate()
            server.route("/3.jpg", HTTPTestServer.Response.ok(bytes, contentType: "image/jpeg").with {
                $0.chunkSize = 8_192
                $0.bodyPause = .init(afterBytes: bytes.count / 2, gate: rest)
            })
            let results = Recorder<Result<ImageLoaderResult, WebImageError>>()
            _ = downloader.downloadImage(with: server.url("/3.jpg"), options: .progressiveLoad) { results.append($0) }
            #expect(await eventually { results.count >= 1 })
            rest.open()
            #expect(await eventually { results.values.contains { (try? $0.get().finished) != false } })
            let values = try results.values.map { try $0.get() }
            let final = try #require(values.last)
            #expect(final.finished)
            #expect(values.dropLast().allSatisfy { !$0.finished && $0.image != nil })
            #expect(values.count >= 2, "expected at least one partial image before the final one")
            let direct = try CodersManager.shared.decode(bytes, options: DecodeOptions())
            let image = try #require(final.image)
            #expect(image.width == direct.width && image.height == direct.height)
            #expect(image.frames[0].pixels.pixel(x: 100, y: 100) == direct.frames[0].pixels.pixel(x: 100, y: 100))
        }
    }

    @Test("Given several corpus images, when downloaded with a thumbnail size, then each decodes to fit it", arguments: [
        "jpeg-misc/progressive/cat.jpg", "generated-valid/alpha_lossy_64x48.webp", "gif/anim/interlaced.gif",
    ])
    func thumbnails(path: String) async throws {
        let bytes = try Corpus.data(path)
        var configuration = ImageDownloaderConfiguration()
        configuration.downloadTimeout = TestTimeouts.download
        configuration.maximumDownloadDuration = TestTimeouts.request
        try await withServerAndDownloader(configuration: configuration) { server, downloader in
            server.route("/img", .ok(bytes))
            var context = WebImageContext()
            context.imageThumbnailPixelSize = PixelSize(width: 16, height: 16)
            let image = try #require(try await loadFinal(downloader, server.url("/img"), context: context).get().image)
            #expect(image.width <= 16 && image.height <= 16)
            #expect(image.width > 0 && image.height > 0)
        }
    }
}
