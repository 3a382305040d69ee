import Dispatch
import Foundation
import Synchronization
import Testing
import WebImageTesting
@testable import WebImage

/// Behaviours SDWebImage, Nuke and Kingfisher users rely on (issue #13), ported onto the
/// public API.
@Suite("Peer parity: cache keys, transformed data, coalescing switch (Q-1, Q-4, M-6, M-9, D-3)")
struct ParityTests {
    @Test("Given a thumbnail context, when the cache is queried for the full key, then the thumbnail goes to memory under the thumbnail key only")
    func thumbnailQueryKey() async throws {
        let (_, cache) = ManagerFixtures.manager(loader: ScriptedLoader())
        let key = ManagerFixtures.url("thumb-query").absoluteString
        try await cache.store(nil, imageData: try ManagerFixtures.data(), forKey: key, cacheType: .disk)
        var context = WebImageContext()
        context.imageThumbnailPixelSize = PixelSize(width: 12, height: 12)
        let result = await cache.queryImage(forKey: key, context: context)
        #expect(result.image?.width == 12)
        let thumbKey = ImageCache.thumbnailCacheKey(
            for: key, thumbnailPixelSize: PixelSize(width: 12, height: 12), preserveAspectRatio: true)
        #expect(cache.imageFromMemoryCache(forKey: thumbKey)?.width == 12)
        #expect(cache.imageFromMemoryCache(forKey: key) == nil, "the thumbnail must not stand for the full-size image")

        // A full-size query then decodes the original.
        let full = await cache.queryImage(forKey: key)
        #expect(full.image?.width == 24)
    }

    @Test("Given a transformer, when a download completes, then the result carries no data; without one, the downloaded bytes")
    func transformedResultHasNoData() async throws {
        let loader = ScriptedLoader()
        let (manager, _) = ManagerFixtures.manager(loader: loader)
        let bytes = try ManagerFixtures.data()
        let transformedURL = ManagerFixtures.url("transformed-data")
        let plainURL = ManagerFixtures.url("plain-data")
        loader.script(transformedURL, .data(bytes))
        loader.script(plainURL, .data(bytes))
        var context = WebImageContext()
        context.imageTransformer = InvertTransformer()
        let transformed = try await manager.loadImage(with: transformedURL, context: context)
        #expect(transformed.image != nil)
        #expect(transformed.data == nil, "the downloaded bytes describe the original, not the transformed image")
        let plain = try await manager.loadImage(with: plainURL)
        #expect(plain.data == bytes)
    }

    @Test("Given thumbnail and transformer contexts, then cacheKey(for:context:) is the key the delivered image is stored under")
    func cacheKeyAsUsersSeeIt() async throws {
        let loader = ScriptedLoader()
        let (manager, cache) = ManagerFixtures.manager(loader: loader)
        let url = ManagerFixtures.url("keyed")
        loader.script(url, .data(try ManagerFixtures.data()))
        var context = WebImageContext()
        context.imageThumbnailPixelSize = PixelSize(width: 12, height: 12)
        context.imageTransformer = InvertTransformer()
        let key = try #require(manager.cacheKey(for: url, context: context))
        let expected = ImageCache.cacheKey(
            for: ImageCache.thumbnailCacheKey(
                for: url.absoluteString, thumbnailPixelSize: PixelSize(width: 12, height: 12), preserveAspectRatio: true),
            transformerKey: "Invert")
        #expect(key == expected)
        #expect(manager.originalCacheKey(for: url, context: context) == url.absoluteString)
        #expect(manager.cacheKey(for: url) == url.absoluteString)

        let result = try await manager.loadImage(with: url, context: context)
        #expect(cache.imageFromMemoryCache(forKey: key) === result.image)

        // The manager's default transformer counts too.
        manager.transformer = InvertTransformer()
        #expect(manager.cacheKey(for: url) == ImageCache.cacheKey(for: url.absoluteString, transformerKey: "Invert"))
    }

    @Test("Given coalescing switched off, then concurrent requests for one URL are separate downloads; on, one", arguments: [false, true])
    func coalescingSwitch(coalesces: Bool) async throws {
        var configuration = testDownloaderConfiguration()
        configuration.coalescesDownloads = coalesces
        try await withServerAndDownloader(configuration: configuration) { server, downloader in
            let gate = HTTPTestServer.Gate()
            server.route("/c.raw", HTTPTestServer.Response.ok(RawTestCoder.encode(width: 4, height: 4)).with { $0.gate = gate })
            let url = server.url("/c.raw")
            let results = Recorder<Result<ImageLoaderResult, WebImageError>>()
            let tokens = (0..<3).map { _ in downloader.downloadImage(with: url) { results.append($0) } }
            gate.open()
            #expect(await eventually { results.count == 3 })
            #expect(server.requestCount("/c.raw") == (coalesces ? 1 : 3))
            #expect(results.values.allSatisfy { (try? $0.get().image?.width) == 4 })
            #expect(tokens.allSatisfy { $0.isFinished })
        }
    }

    @Test("Given a load whose transform waits for a pool thread, when it is cancelled, then the transform never starts")
    func queuedTransformSkippedAfterCancel() async throws {
        let loader = ScriptedLoader()
        let (manager, cache) = ManagerFixtures.manager(loader: loader)
        let url = ManagerFixtures.url("queued-transform")
        loader.script(url, .data(try ManagerFixtures.data()))
        // Hold every thread of the cache's pool, so the transform has to queue.
        let pool = cache.pool
        let holdStarted = Mutex(0)
        let release = DispatchSemaphore(value: 0)
        for _ in 0..<pool.width {
            pool.submit {
                holdStarted.withLock { $0 += 1 }
                _ = release.wait(timeout: .now() + 120)
            }
        }
        #expect(await eventually { holdStarted.withLock { $0 } == pool.width })

        let transformer = InvertTransformer()
        var context = WebImageContext()
        context.imageTransformer = transformer
        let recorder = CompletionRecorder()
        // fromLoaderOnly: no disk query, which would queue on the held pool too.
        let operation = manager.loadImage(with: url, options: .fromLoaderOnly, context: context, completed: recorder.handler)
        #expect(await eventually { pool.queuedCount == 1 }, "the transform is queued behind the held threads")
        operation?.cancel()
        for _ in 0..<pool.width { release.signal() }
        // Jobs start in submission order: once this one ran, the transform job had its turn.
        _ = try await pool.run { 0 }
        #expect(transformer.startedCount == 0, "cancelled work must not start")
        #expect(recorder.errorCodes == ["cancelled"])
        #expect(cache.imageFromMemoryCache(forKey: try #require(manager.cacheKey(for: url, context: context))) == nil)
    }

    @Test("Given an @2x file name, then the network, a file and the disk cache all give scale 2; an explicit scale wins")
    func fileNameScaleEverywhere() async throws {
        try await withServerAndDownloader { server, downloader in
            server.route("/icon@2x.raw", HTTPTestServer.Response.ok(RawTestCoder.encode(width: 8, height: 8)))
            let network = try await loadFinal(downloader, server.url("/icon@2x.raw"), context: rawContext()).get()
            #expect(network.image?.scale == 2)

            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-scale-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let file = directory.appendingPathComponent("icon@3x.raw")
            try RawTestCoder.encode(width: 6, height: 6).write(to: file)
            let local = try await loadFinal(LocalImageLoader(), file, context: rawContext()).get()
            #expect(local.image?.scale == 3)

            var explicit = rawContext()
            explicit.imageScaleFactor = 1
            let overridden = try await loadFinal(downloader, server.url("/icon@2x.raw"), context: explicit).get()
            #expect(overridden.image?.scale == 1)
        }
    }

    /// A manager that records each load's settings and lets the test end it.
    private final class RecordingManager: ImageManaging {
        struct Load: Sendable {
            let url: URL
            let options: WebImageOptions
            let thumbnail: PixelSize?
            let completion: ImageCompletionHandler
        }
        final class Operation: ImageOperation {
            private let cancelled = Mutex(false)
            func cancel() { cancelled.withLock { $0 = true } }
            var isCancelled: Bool { cancelled.withLock { $0 } }
        }
        private let state = Mutex<[Load]>([])
        var loads: [Load] { state.withLock { $0 } }
        func loadImage(
            with url: URL?, options: WebImageOptions, context: WebImageContext, progress: ImageProgressHandler?,
            completed: @escaping ImageCompletionHandler
        ) -> (any ImageOperation)? {
            guard let url else { return nil }
            state.withLock {
                $0.append(Load(url: url, options: options, thumbnail: context.imageThumbnailPixelSize, completion: completed))
            }
            return Operation()
        }
    }

    @Test("Given two prefetch batches with their own settings, when A's item ends and B's item starts, then B's item uses B's settings")
    func prefetchBatchesKeepTheirSettings() throws {
        let manager = RecordingManager()
        let prefetcher = ImagePrefetcher(manager: manager, maxConcurrentPrefetchCount: 1)
        var thumbnails = WebImageContext()
        thumbnails.imageThumbnailPixelSize = PixelSize(width: 10, height: 10)
        let a = URL(string: "https://img.example.invalid/a.png")!
        let b = URL(string: "https://img.example.invalid/b.png")!
        prefetcher.prefetchURLs([a], context: thumbnails)
        prefetcher.prefetchURLs([b], options: .highPriority)
        #expect(manager.loads.count == 1)
        let first = try #require(manager.loads.first)
        first.completion(.success(ImageResult(image: nil, cacheType: .none, url: a)))
        #expect(manager.loads.count == 2)
        let second = try #require(manager.loads.last)
        #expect(second.url == b)
        #expect(second.options.contains(.highPriority), "B's own options")
        #expect(second.options.contains(.lowPriority), "the prefetcher's base options")
        #expect(second.thumbnail == nil, "A's thumbnail context must not leak into B")
        #expect(first.thumbnail == PixelSize(width: 10, height: 10))
    }
}
