import Foundation
import Testing
import WebImage

/// The README's "Configuration" example, kept compiling and checked to do what its comments say
/// (with a temporary directory instead of /var/cache).
@Suite("README configuration example")
struct ReadmeConfigurationTests {
    @Test("Given the README's configuration code, then the downloader, cache and manager carry its settings")
    func readmeExample() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-readme-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }

        var downloads = ImageDownloaderConfiguration()
        downloads.maxConcurrentDownloads = 8
        downloads.executionOrder = .lifo
        downloads.downloadTimeout = 30
        downloads.maximumDownloadDuration = 60
        downloads.maximumResponseSize = 16 << 20
        downloads.setValue("my-app/1.0", forHeader: "User-Agent")
        downloads.resumableDataCapacity = 0
        let downloader = ImageDownloader(configuration: downloads)

        var caching = ImageCache.Configuration()
        caching.memory.costLimit = 256 << 20
        caching.disk.maxDiskAge = 3 * 24 * 3600
        caching.disk.maxDiskSize = 1 << 30
        let cache = ImageCache(directory: directory, configuration: caching)

        let manager = ImageManager(cache: cache, loader: LoadersManager(loaders: [LocalImageLoader(), downloader]))
        manager.callbackQueue = .current

        var context = WebImageContext()
        context.maximumLoadDuration = 20
        context.maximumDecodedBytes = 64 << 20

        #expect(downloader.configuration.maxConcurrentDownloads == 8)
        #expect(downloader.configuration.maximumDownloadDuration == 60)
        #expect(context.decodeOptions(for: []).limits.maxDecodedBytes == 64 << 20)
        #expect(context.maximumLoadDuration == 20)
        #expect(downloader.configuration.headers.filter { $0.name == "User-Agent" }.map(\.value) == ["my-app/1.0"])
        #expect(cache.memoryCache.configuration.costLimit == 256 << 20)
        #expect(cache.diskCache.directory == directory)
        // The manager loads through that loader and cache: a data: URL needs no network.
        let result = try await manager.loadImage(with: URL(string: "data:image/png;base64," + Self.onePixelPNG)!)
        #expect(result.image?.pixelSize == PixelSize(width: 1, height: 1))
        try await downloader.shutdown()
    }

    private static let onePixelPNG =
        "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
}
