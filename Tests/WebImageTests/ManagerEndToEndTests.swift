import Dispatch
import Foundation
import Synchronization
import Testing
@testable import WebImage
import WebImageTesting

/// The whole pipeline over the real stack: ImageManager → ImageCache (temporary directory) →
/// ImageDownloader (AsyncHTTPClient) → the loopback test server, with the real WebP coder.
@Suite("Image manager end to end over loopback HTTP")
struct ManagerEndToEndTests {
    /// Runs `body` with a server and a manager whose loader is a downloader (the real codecs),
    /// seen through a ``CountingLoader``.
    func withPipeline(_ body: (HTTPTestServer, ImageManager, ImageCache) async throws -> Void) async throws {
        try await withPipeline { server, manager, cache, _ in try await body(server, manager, cache) }
    }

    func withPipeline(_ body: (HTTPTestServer, ImageManager, ImageCache, CountingLoader) async throws -> Void) async throws {
        var configuration = ImageDownloaderConfiguration()
        configuration.downloadTimeout = TestTimeouts.download
        configuration.maximumDownloadDuration = TestTimeouts.request
        try await withServerAndDownloader(configuration: configuration) { server, downloader in
            let loader = CountingLoader(downloader)
            let (_, cache) = ManagerFixtures.manager(loader: loader)
            let manager = ImageManager(cache: cache, loader: loader)
            manager.callbackQueue = .current
            try await body(server, manager, cache, loader)
        }
    }

    @Test("Given a served image, then it downloads once, and the second load is a memory hit")
    func downloadThenMemory() async throws {
        try await withPipeline { server, manager, cache in
            server.route("/a.webp", .ok(try ManagerFixtures.data(), contentType: "image/webp"))
            let url = server.url("/a.webp")
            let first = try await manager.loadImage(with: url, options: .waitStoreCache)
            #expect(first.cacheType == .none && first.image?.width == 24)
            #expect(cache.containsImage(forKey: url.absoluteString, cacheType: .disk) == .disk)
            let second = try await manager.loadImage(with: url)
            #expect(second.cacheType == .memory)
            #expect(server.requestCount("/a.webp") == 1)
        }
    }

    @Test("Given a download cut short, then the URL is not blocked, and the next load continues it with a range and caches the whole image")
    func resumedThroughManager() async throws {
        try await withPipeline { server, manager, cache in
            let data = try ManagerFixtures.data()
            let cut = data.count / 2
            let served = Mutex(0)
            let ranged = HTTPTestServer.ranges(data, entityTag: "\"r1\"", lastModified: nil, contentType: "image/webp")
            server.route("/cut.webp") { request in
                let first = served.withLock { count in
                    defer { count += 1 }
                    return count == 0
                }
                return first ? ranged(request).with { $0.declaredLength = data.count; $0.body = data.prefix(cut) } : ranged(request)
            }
            let url = server.url("/cut.webp")
            await #expect(throws: WebImageError.self) { try await manager.loadImage(with: url) }
            #expect(!manager.failedURLs.contains(url))
            let loaded = try await manager.loadImage(with: url, options: .waitStoreCache)
            #expect(loaded.image?.width == 24 && loaded.image?.height == 16)
            #expect(server.requests(for: "/cut.webp").last?.header("Range") == "bytes=\(cut)-")
            #expect(cache.diskCache.data(for: url.absoluteString) == data)
        }
    }

    @Test("Given 200 concurrent loads of one URL through the manager, then the server sees one request")
    func coalescedThroughManager() async throws {
        try await withPipeline { server, manager, _, loader in
            // The response waits until every load has reached the downloader.
            let gate = HTTPTestServer.Gate()
            server.route("/shared.webp", .ok(try ManagerFixtures.data()).with { $0.gate = gate })
            let url = server.url("/shared.webp")
            let widths = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<200 {
                    group.addTask { try await manager.loadImage(with: url, options: .fromLoaderOnly).image?.width ?? 0 }
                }
                #expect(await eventually { loader.requestCount == 200 })
                gate.open()
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(widths.count == 200 && widths.allSatisfy { $0 == 24 })
            #expect(server.requestCount("/shared.webp") == 1)
            #expect(manager.runningOperationCount == 0)
        }
    }

    @Test("Given a load whose image is being decoded, when the same URL is loaded meanwhile, then it shares that body: one request at the server, one decode")
    func loadDuringDecodeJoins() async throws {
        try await withPipeline { server, manager, cache, loader in
            server.route("/decoding.webp", .ok(try ManagerFixtures.data(), contentType: "image/webp"))
            let url = server.url("/decoding.webp")
            let coder = GatedDecoder()
            var context = WebImageContext()
            context.imageCoders = CodersManager(coders: [coder])
            let first = CompletionRecorder()
            let second = CompletionRecorder()
            manager.loadImage(with: url, context: context, completed: first.handler)
            // The body has arrived and is being decoded: the download no longer holds a slot
            // and nothing is in memory yet.
            #expect(await eventually { coder.decodesStarted == 1 })
            #expect(cache.imageFromMemoryCache(forKey: url.absoluteString) == nil)
            manager.loadImage(with: url, context: context, completed: second.handler)
            // The second load has reached the running decode (it joins it before asking the
            // loader: the download has ended).
            #expect(await eventually { manager.sharedDecodes.counts.joined == 1 })
            coder.open()
            coder.open()  // a second decode (the old behaviour) must not hang the test
            #expect(await eventually { first.count == 1 && second.count == 1 })
            #expect(first.errorCodes.isEmpty && second.errorCodes.isEmpty)
            #expect(server.requestCount("/decoding.webp") == 1, "the second load downloaded the URL again")
            #expect(coder.decodesStarted == 1, "the joined load reuses the decoded image")
        }
    }

    @Test("Given refreshCached against a server with an ETag, then 304 keeps the cached image with one delivery")
    func revalidationOverHTTP() async throws {
        try await withPipeline { server, manager, cache in
            server.route("/e.webp", handler: HTTPTestServer.conditional(try ManagerFixtures.data(), entityTag: "\"e1\"", lastModified: nil))
            let url = server.url("/e.webp")
            _ = try await manager.loadImage(with: url, options: .waitStoreCache)
            #expect(cache.diskCache.extendedData(for: url.absoluteString)?.eTag == "\"e1\"")
            let recorder = CompletionRecorder()
            let ended = Mutex(false)
            _ = manager.start(url, options: .refreshCached, context: WebImageContext(), progress: nil, completed: recorder.handler,
                ended: { ended.withLock { $0 = true } })
            #expect(await eventually { ended.withLock { $0 } })
            #expect(recorder.count == 1 && recorder.cacheTypes == [.memory])
            #expect(server.requests(for: "/e.webp").last?.header("If-None-Match") == "\"e1\"")
        }
    }

    @Test("Given a load cancelled while its image is being decoded, then the completion runs once with cancelled and nothing reaches the memory cache")
    func cancelDuringDecode() async throws {
        try await withPipeline { server, manager, cache in
            server.route("/slow-decode.webp", .ok(try ManagerFixtures.data(), contentType: "image/webp"))
            let url = server.url("/slow-decode.webp")
            let coder = GatedDecoder()
            var context = WebImageContext()
            context.imageCoders = CodersManager(coders: [coder])
            let recorder = CompletionRecorder()
            let operation = manager.loadImage(with: url, context: context, completed: recorder.handler)
            #expect(await eventually { coder.decodesStarted == 1 })
            operation?.cancel()
            coder.open()
            #expect(await eventually { manager.runningOperationCount == 0 && coder.decodesFinished == 1 })
            try await Task.sleep(for: .milliseconds(50))
            #expect(recorder.count == 1)
            #expect(recorder.errorCodes == ["cancelled"])
            #expect(cache.imageFromMemoryCache(forKey: url.absoluteString) == nil)
        }
    }

    @Test("Given a 404, then the URL is blocked and not requested again")
    func notFoundBlocks() async throws {
        try await withPipeline { server, manager, _ in
            server.route("/missing.webp", .status(404))
            let url = server.url("/missing.webp")
            await #expect(throws: WebImageError.self) { try await manager.loadImage(with: url) }
            await #expect(throws: WebImageError.self) { try await manager.loadImage(with: url) }
            #expect(server.requestCount("/missing.webp") == 1)
            #expect(manager.failedURLs.contains(url))
        }
    }
}

/// A loader that counts the requests it forwards to another: once ``requestCount`` reached
/// n, n requests have been handed to the wrapped loader (a downloader has registered each as a
/// caller of its download).
final class CountingLoader: ImageLoader {
    private let wrapped: any ImageLoader
    private let count = Mutex(0)

    init(_ wrapped: any ImageLoader) { self.wrapped = wrapped }

    /// Requests forwarded so far.
    var requestCount: Int { count.withLock { $0 } }

    func canRequestImage(for url: URL) -> Bool { wrapped.canRequestImage(for: url) }

    func requestImage(
        with url: URL, options: WebImageOptions, context: WebImageContext, progress: ImageLoaderProgress?,
        completed: @escaping ImageLoaderCompletion
    ) -> any ImageLoaderToken {
        let token = wrapped.requestImage(with: url, options: options, context: context, progress: progress, completed: completed)
        count.withLock { $0 += 1 }
        return token
    }

    func shouldBlockFailedURL(_ url: URL, error: WebImageError) -> Bool { wrapped.shouldBlockFailedURL(url, error: error) }
}

/// The WebP coder behind a gate: `decode` waits until the test opens it, so a test can act while
/// a decode is in progress.
final class GatedDecoder: ImageCoder {
    private let gate = DispatchSemaphore(value: 0)
    private let counts = Mutex((started: 0, finished: 0))
    private let webp = WebPCoder()

    var decodesStarted: Int { counts.withLock { $0.started } }
    var decodesFinished: Int { counts.withLock { $0.finished } }
    func open() { gate.signal() }

    func canDecode(_ data: Data) -> Bool { webp.canDecode(data) }

    func decode(_ data: Data, options: DecodeOptions) throws -> Image {
        counts.withLock { $0.started += 1 }
        _ = gate.wait(timeout: .now() + 120)  // a forgotten gate cannot hang the test
        defer { counts.withLock { $0.finished += 1 } }
        return try webp.decode(data, options: options)
    }
}
