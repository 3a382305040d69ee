import Foundation
import Synchronization
import Testing
@testable import WebImage

@Suite("Image manager: input and failed URLs (M-2, M-3)")
struct ManagerInputTests {
    @Test("Given nil, empty or unparsable URLs, then invalidURL at once and the loader is not asked")
    func invalidURLs() async throws {
        let loader = ScriptedLoader()
        let (manager, _) = ManagerFixtures.manager(loader: loader)
        let recorder = CompletionRecorder()
        manager.loadImage(with: nil as URL?, completed: recorder.handler)
        manager.loadImage(with: "", completed: recorder.handler)
        manager.loadImage(with: "no scheme here", completed: recorder.handler)
        #expect(recorder.errorCodes == ["invalidURL", "invalidURL", "invalidURL"])
        await #expect(throws: WebImageError.self) { try await manager.loadImage(with: "") }
        #expect(loader.totalRequests == 0)
        #expect(manager.runningOperationCount == 0)
    }

    @Test("Given a failed URL, then later loads fail with blackListed without touching the loader; retryFailed bypasses and a success clears it")
    func blacklist() async throws {
        let loader = ScriptedLoader()
        let (manager, _) = ManagerFixtures.manager(loader: loader)
        let url = ManagerFixtures.url("missing")
        loader.script(url, .error(.invalidDownloadStatusCode(404)))
        let first = CompletionRecorder()
        manager.loadImage(with: url, completed: first.handler)
        #expect(await eventually { first.count == 1 })
        #expect(first.errorCodes == ["invalidDownloadStatusCode"])
        let second = CompletionRecorder()
        manager.loadImage(with: url, completed: second.handler)
        #expect(second.errorCodes == ["blackListed"])
        #expect(loader.requestCount(url) == 1)

        loader.script(url, .data(try ManagerFixtures.data()))
        let retried = try await manager.loadImage(with: url, options: .retryFailed)
        #expect(retried.image != nil)
        #expect(loader.requestCount(url) == 2)
        #expect(!manager.failedURLs.contains(url))
    }

    @Test("Given transient failures, then the URL is not blocked", arguments: [
        TransportError.Kind.timedOut, .notConnected, .cannotFindHost, .cannotConnectToHost, .connectionLost,
    ])
    func transientNotBlocked(kind: TransportError.Kind) async {
        let loader = ScriptedLoader()
        let (manager, _) = ManagerFixtures.manager(loader: loader)
        let url = ManagerFixtures.url("flaky")
        loader.script(url, .error(.transport(TransportError(kind, "scripted"))))
        await #expect(throws: WebImageError.self) { try await manager.loadImage(with: url) }
        await #expect(throws: WebImageError.self) { try await manager.loadImage(with: url) }
        #expect(loader.requestCount(url) == 2)
        #expect(!manager.failedURLs.contains(url))
    }
}

@Suite("Image manager: cache decisions (M-6, M-8, Q-5)")
struct ManagerCacheTests {
    @Test("Given a download, then the second load is a memory hit and the loader is asked once")
    func secondLoadFromMemory() async throws {
        let loader = ScriptedLoader()
        let (manager, _) = ManagerFixtures.manager(loader: loader)
        let url = ManagerFixtures.url("a")
        loader.script(url, .data(try ManagerFixtures.data()))
        let first = try await manager.loadImage(with: url)
        let second = try await manager.loadImage(with: url)
        #expect(first.cacheType == .none)
        #expect(second.cacheType == .memory)
        #expect(second.image === first.image, "a memory hit shares the image")
        #expect(loader.requestCount(url) == 1)
    }

    @Test("Given a memory hit, then it completes before loadImage returns, with no operation and nothing left running")
    func memoryHitIsSynchronous() async throws {
        let loader = ScriptedLoader()
        let (manager, cache) = ManagerFixtures.manager(loader: loader)
        let url = ManagerFixtures.url("sync")
        let image = ManagerFixtures.image()
        cache.memoryCache.setImage(image, forKey: url.absoluteString)
        let recorder = CompletionRecorder()
        let operation = manager.loadImage(with: url, completed: recorder.handler)
        #expect(operation == nil)
        #expect(recorder.count == 1 && recorder.cacheTypes == [.memory])
        #expect(recorder.images.first! === image)
        #expect(manager.runningOperationCount == 0)
        // refreshCached and queryMemoryData take the full path.
        let slow = CompletionRecorder()
        #expect(manager.loadImage(with: url, options: .queryMemoryData, completed: slow.handler) != nil)
    }

    @Test("Given fromCacheOnly and an image only on disk, then query type memory gives no image and no download; disk gives the image")
    func fromCacheOnlyQueryTypes() async throws {
        let loader = ScriptedLoader()
        let (manager, cache) = ManagerFixtures.manager(loader: loader)
        let url = ManagerFixtures.url("disk-only")
        try await cache.store(nil, imageData: try ManagerFixtures.data(), forKey: url.absoluteString, cacheType: .disk)
        var memoryOnly = WebImageContext()
        memoryOnly.queryCacheType = .memory
        let none = try await manager.loadImage(with: url, options: .fromCacheOnly, context: memoryOnly)
        #expect(none.image == nil && none.cacheType == .none)
        var diskOnly = WebImageContext()
        diskOnly.queryCacheType = .disk
        let fromDisk = try await manager.loadImage(with: url, options: .fromCacheOnly, context: diskOnly)
        #expect(fromDisk.image?.width == 24 && fromDisk.cacheType == .disk)
        #expect(loader.totalRequests == 0)
    }

    @Test("Given fromLoaderOnly, then the cache is not queried and the loader always runs")
    func fromLoaderOnly() async throws {
        let loader = ScriptedLoader()
        let (manager, _) = ManagerFixtures.manager(loader: loader)
        let url = ManagerFixtures.url("fresh")
        loader.script(url, .data(try ManagerFixtures.data()))
        _ = try await manager.loadImage(with: url)
        let again = try await manager.loadImage(with: url, options: .fromLoaderOnly)
        #expect(again.cacheType == .none)
        #expect(loader.requestCount(url) == 2)
    }

    @Test("Given a transformer, then original and transformed images live under different keys per the original-cache types")
    func transformedAndOriginalKeys() async throws {
        let loader = ScriptedLoader()
        let (manager, cache) = ManagerFixtures.manager(loader: loader)
        let url = ManagerFixtures.url("t")
        loader.script(url, .data(try ManagerFixtures.data()))
        var context = WebImageContext()
        context.imageTransformer = InvertTransformer()
        let result = try await manager.loadImage(with: url, options: .waitStoreCache, context: context)
        let key = url.absoluteString
        let transformedKey = ImageCache.cacheKey(for: key, transformerKey: "Invert")
        #expect(transformedKey != key)
        #expect(result.image?.pixels.pixel(x: 10, y: 10).r == 255 - ManagerFixtures.image().pixels.pixel(x: 10, y: 10).r)
        #expect(cache.imageFromMemoryCache(forKey: transformedKey) === result.image)
        #expect(cache.imageFromMemoryCache(forKey: key) == nil, "the original goes to disk only by default")
        #expect(cache.containsImage(forKey: key, cacheType: .disk) == .disk)
        #expect(cache.containsImage(forKey: transformedKey, cacheType: .disk) == .disk)

        // originalStoreCacheType .none: the original is not kept at all.
        let other = ManagerFixtures.url("t2")
        loader.script(other, .data(try ManagerFixtures.data()))
        context.originalStoreCacheType = ImageCacheType.none
        _ = try await manager.loadImage(with: other, options: .waitStoreCache, context: context)
        #expect(cache.containsImage(forKey: other.absoluteString) == .none)
        #expect(cache.containsImage(forKey: ImageCache.cacheKey(for: other.absoluteString, transformerKey: "Invert")) == .memory)
    }

    @Test("Given a cached original and originalQueryCacheType, then a transformed load derives from it without downloading")
    func originalQuery() async throws {
        let loader = ScriptedLoader()
        let (manager, cache) = ManagerFixtures.manager(loader: loader)
        let url = ManagerFixtures.url("derive")
        try await cache.store(nil, imageData: try ManagerFixtures.data(), forKey: url.absoluteString, cacheType: .disk)
        var context = WebImageContext()
        context.imageTransformer = InvertTransformer()
        context.originalQueryCacheType = .all
        let result = try await manager.loadImage(with: url, context: context)
        #expect(result.cacheType == .disk)
        #expect(result.image?.pixels.pixel(x: 10, y: 10).r == 255 - ManagerFixtures.image().pixels.pixel(x: 10, y: 10).r)
        #expect(loader.totalRequests == 0)
    }

    @Test("Given thumbnail loads, then the full image never lands under the thumbnail key nor the thumbnail under the full key")
    func thumbnailKeys() async throws {
        let loader = ScriptedLoader()
        let (manager, cache) = ManagerFixtures.manager(loader: loader)
        let url = ManagerFixtures.url("thumb")
        loader.script(url, .data(try ManagerFixtures.data()))
        var context = WebImageContext()
        context.imageThumbnailPixelSize = PixelSize(width: 12, height: 12)
        let thumb = try await manager.loadImage(with: url, options: .waitStoreCache, context: context)
        #expect(thumb.image?.width == 12 && thumb.image?.height == 8)
        let key = url.absoluteString
        let thumbKey = ImageCache.thumbnailCacheKey(for: key, thumbnailPixelSize: PixelSize(width: 12, height: 12), preserveAspectRatio: true)
        #expect(cache.imageFromMemoryCache(forKey: thumbKey)?.width == 12)
        #expect(cache.imageFromMemoryCache(forKey: key) == nil)

        let full = try await manager.loadImage(with: url)
        #expect(full.image?.width == 24, "the full load decodes the original bytes from disk, not the thumbnail")
        #expect(full.cacheType == .disk)
        #expect(cache.imageFromMemoryCache(forKey: thumbKey)?.width == 12)
        #expect(loader.requestCount(url) == 1)
    }

    @Test("Given a cache key filter, then URLs differing only in a token share one entry")
    func cacheKeyFilter() async throws {
        let loader = ScriptedLoader()
        let (manager, _) = ManagerFixtures.manager(loader: loader)
        manager.cacheKeyFilter = .removingQueryItems(["token"])
        let a = URL(string: "test://images.invalid/k.webp?token=1")!
        let b = URL(string: "test://images.invalid/k.webp?token=2")!
        loader.script(a, .data(try ManagerFixtures.data()))
        _ = try await manager.loadImage(with: a)
        let second = try await manager.loadImage(with: b)
        #expect(second.cacheType == .memory)
        #expect(manager.cacheKey(for: b) == "test://images.invalid/k.webp")
    }

    @Test("Given a delegate that vetoes downloads, then an uncached URL completes with no image and no error")
    func delegateVeto() async throws {
        final class Veto: ImageManagerDelegate {
            func imageManager(_ manager: ImageManager, shouldDownloadImageFor url: URL) -> Bool { false }
        }
        let loader = ScriptedLoader()
        let (manager, _) = ManagerFixtures.manager(loader: loader)
        let veto = Veto()
        manager.delegate = veto
        let result = try await manager.loadImage(with: ManagerFixtures.url("vetoed"))
        #expect(result.image == nil && result.cacheType == .none)
        #expect(loader.totalRequests == 0)
    }

    @Test("Given an options processor, then it rewrites the request's options")
    func optionsProcessor() async throws {
        let loader = ScriptedLoader()
        let (manager, _) = ManagerFixtures.manager(loader: loader)
        let url = ManagerFixtures.url("processed")
        loader.script(url, .data(try ManagerFixtures.data()))
        _ = try await manager.loadImage(with: url)
        manager.optionsProcessor = OptionsProcessorClosure { _, input in
            var output = input
            output.options.insert(.fromLoaderOnly)
            return output
        }
        let result = try await manager.loadImage(with: url)
        #expect(result.cacheType == .none)
        #expect(loader.requestCount(url) == 2)
    }

    @Test("Given an options processor that picks the callback queue, then the completion runs there")
    func processorChoosesQueue() async throws {
        let loader = ScriptedLoader()
        let (manager, _) = ManagerFixtures.manager(loader: loader)
        let url = ManagerFixtures.url("routed")
        loader.script(url, .data(try ManagerFixtures.data()))
        let queue = DispatchQueue(label: "test.processor.queue")
        let key = DispatchSpecificKey<Int>()
        queue.setSpecific(key: key, value: 7)
        manager.optionsProcessor = OptionsProcessorClosure { _, input in
            var output = input
            output.context.callbackQueue = .queue(queue)
            return output
        }
        let seen = Mutex<Int?>(nil)
        manager.loadImage(with: url, completed: { _ in seen.withLock { $0 = DispatchQueue.getSpecific(key: key) } })
        #expect(await eventually { seen.withLock { $0 } == 7 })
    }

    @Test("Given avoidDecodeImage, then the bytes are delivered without an image")
    func avoidDecode() async throws {
        let loader = ScriptedLoader()
        let (manager, _) = ManagerFixtures.manager(loader: loader)
        let url = ManagerFixtures.url("raw")
        let data = try ManagerFixtures.data()
        loader.script(url, .data(data))
        let result = try await manager.loadImage(with: url, options: .avoidDecodeImage)
        #expect(result.image == nil)
        #expect(result.data == data)
    }
}

@Suite("Image manager: revalidation (M-8, D-10)")
struct ManagerRefreshTests {
    let etag: [HTTPHeaderField] = [HTTPHeaderField(name: "ETag", value: "\"v1\"")]

    @Test("Given refreshCached and a 304, then the cached image is delivered once and the validator was sent")
    func notModified() async throws {
        let loader = ScriptedLoader()
        let (manager, cache) = ManagerFixtures.manager(loader: loader)
        let url = ManagerFixtures.url("etag")
        let data = try ManagerFixtures.data()
        loader.script(url, .notModifiedOr(data, headers: etag))
        _ = try await manager.loadImage(with: url, options: .waitStoreCache)
        #expect(cache.diskCache.extendedData(for: url.absoluteString)?.eTag == "\"v1\"")
        let recorder = CompletionRecorder()
        let ended = Mutex(false)
        _ = manager.start(url, options: .refreshCached, context: WebImageContext(), progress: nil, completed: recorder.handler, ended: { ended.withLock { $0 = true } })
        #expect(await eventually { ended.withLock { $0 } })
        #expect(recorder.count == 1)
        #expect(recorder.cacheTypes == [.memory])
        #expect(loader.sentValidators.last??.entityTag == "\"v1\"")
        #expect(manager.runningOperationCount == 0)
    }

    @Test("Given refreshCached and a changed image, then the cached image is delivered and then the new one")
    func changed() async throws {
        let loader = ScriptedLoader()
        let (manager, _) = ManagerFixtures.manager(loader: loader)
        let url = ManagerFixtures.url("changing")
        loader.script(url, .data(try ManagerFixtures.data(seed: 0), headers: etag))
        _ = try await manager.loadImage(with: url, options: .waitStoreCache)
        loader.script(url, .data(try ManagerFixtures.data(seed: 50), headers: [HTTPHeaderField(name: "ETag", value: "\"v2\"")]))
        let recorder = CompletionRecorder()
        manager.loadImage(with: url, options: .refreshCached, completed: recorder.handler)
        #expect(await eventually { recorder.count == 2 })
        #expect(recorder.cacheTypes == [.memory, .none])
        #expect(recorder.images.last??.pixels.pixel(x: 0, y: 8).b == 178)
        let latest = try await manager.loadImage(with: url)
        #expect(latest.image?.pixels.pixel(x: 0, y: 8).b == 178, "the new image replaced the cached one")
    }
}

@Suite("Image manager: cancellation and delivery (M-10, M-11)")
struct ManagerCancellationTests {
    @Test("Given two identical loads, when one is cancelled, then the other completes with the image")
    func cancelOneOfTwo() async throws {
        let loader = ScriptedLoader()
        let (manager, _) = ManagerFixtures.manager(loader: loader)
        let url = ManagerFixtures.url("pair")
        loader.script(url, .hold)
        let a = CompletionRecorder()
        let b = CompletionRecorder()
        let opA = manager.loadImage(with: url, completed: a.handler)
        manager.loadImage(with: url, completed: b.handler)
        #expect(await eventually { loader.heldCount == 2 })
        opA?.cancel()
        #expect(a.errorCodes == ["cancelled"])
        loader.release(url, with: .data(try ManagerFixtures.data()))
        loader.release(url, with: .data(try ManagerFixtures.data()))
        #expect(await eventually { b.count == 1 })
        #expect(b.images.count == 1)
        #expect(a.count == 1, "the cancelled caller hears nothing more")
    }

    @Test("Given cancellation at every stage, then the completion runs exactly once with cancelled and nothing is stored in memory")
    func exactlyOnceEveryPath() async throws {
        let loader = ScriptedLoader()
        let (manager, cache) = ManagerFixtures.manager(loader: loader)
        let data = try ManagerFixtures.data()

        // Cancel right after start (the disk query is still pending).
        let early = ManagerFixtures.url("early")
        loader.script(early, .data(data))
        let r1 = CompletionRecorder()
        manager.loadImage(with: early, completed: r1.handler)?.cancel()

        // Cancel mid-download.
        let mid = ManagerFixtures.url("mid")
        loader.script(mid, .hold)
        let r2 = CompletionRecorder()
        let op2 = manager.loadImage(with: mid, completed: r2.handler)
        #expect(await eventually { loader.heldCount == 1 })
        op2?.cancel()
        loader.release(mid, with: .data(data))

        // Cancel while the transformer runs (after decode).
        let late = ManagerFixtures.url("late")
        loader.script(late, .data(data))
        let gated = InvertTransformer(key: "Gated", gated: true)
        var context = WebImageContext()
        context.imageTransformer = gated
        let r3 = CompletionRecorder()
        let op3 = manager.loadImage(with: late, context: context, completed: r3.handler)
        #expect(await eventually { gated.startedCount == 1 })
        op3?.cancel()
        gated.open()

        // Success and error paths, for comparison.
        let ok = ManagerFixtures.url("ok")
        loader.script(ok, .data(data))
        let r4 = CompletionRecorder()
        manager.loadImage(with: ok, completed: r4.handler)
        let bad = ManagerFixtures.url("bad")
        loader.script(bad, .data(Data("not an image".utf8)))
        let r5 = CompletionRecorder()
        manager.loadImage(with: bad, completed: r5.handler)

        #expect(await eventually { manager.runningOperationCount == 0 })
        try await Task.sleep(for: .milliseconds(50))
        #expect(r1.errorCodes == ["cancelled"] && r1.count == 1)
        #expect(r2.errorCodes == ["cancelled"] && r2.count == 1)
        #expect(r3.errorCodes == ["cancelled"] && r3.count == 1)
        #expect(r4.images.count == 1 && r4.count == 1)
        #expect(r5.errorCodes == ["badImageData"] && r5.count == 1)
        #expect(cache.imageFromMemoryCache(forKey: ImageCache.cacheKey(for: late.absoluteString, transformerKey: "Gated")) == nil)
        #expect(cache.imageFromMemoryCache(forKey: mid.absoluteString) == nil)
    }

    @Test("Given a thousand loads, some cancelled, then no running operation is left")
    func noLeaks() async throws {
        let loader = ScriptedLoader()
        let (manager, _) = ManagerFixtures.manager(loader: loader)
        let data = try ManagerFixtures.data()
        let recorder = CompletionRecorder()
        for i in 0..<1_000 {
            let url = ManagerFixtures.url("n\(i % 50)")
            loader.script(url, i % 7 == 0 ? .error(.invalidDownloadStatusCode(500)) : .data(data))
            let operation = manager.loadImage(with: url, options: .retryFailed, completed: recorder.handler)
            if i % 3 == 0 { operation?.cancel() }
        }
        #expect(await eventually { manager.runningOperationCount == 0 && recorder.count == 1_000 })
        #expect(recorder.count == 1_000)
    }

    @Test("Given a cancelled task, then the async load throws cancelled")
    func taskCancellation() async throws {
        let loader = ScriptedLoader()
        let (manager, _) = ManagerFixtures.manager(loader: loader)
        let url = ManagerFixtures.url("task")
        loader.script(url, .hold)
        let task = Task { try await manager.loadImage(with: url) }
        #expect(await eventually { loader.heldCount == 1 })
        task.cancel()
        await #expect(throws: WebImageError.self) { try await task.value }
        #expect(await eventually { manager.runningOperationCount == 0 })
    }

    @Test("Given a callback queue, then the completion runs on it")
    func callbackQueue() async throws {
        let loader = ScriptedLoader()
        let (manager, _) = ManagerFixtures.manager(loader: loader)
        let url = ManagerFixtures.url("queued")
        loader.script(url, .data(try ManagerFixtures.data()))
        let queue = DispatchQueue(label: "test.callbacks")
        let key = DispatchSpecificKey<Int>()
        queue.setSpecific(key: key, value: 42)
        let seen = Mutex<Int?>(nil)
        var context = WebImageContext()
        context.callbackQueue = .queue(queue)
        manager.loadImage(with: url, context: context, completed: { _ in seen.withLock { $0 = DispatchQueue.getSpecific(key: key) } })
        #expect(await eventually { seen.withLock { $0 } == 42 })
    }

    @Test("Given imageEvents, then the stream ends with the image")
    func eventStream() async throws {
        let loader = ScriptedLoader()
        let (manager, _) = ManagerFixtures.manager(loader: loader)
        let url = ManagerFixtures.url("stream")
        loader.script(url, .data(try ManagerFixtures.data()))
        var images = 0
        for try await event in manager.imageEvents(for: url) {
            if case .image(let result) = event { images += 1; #expect(result.image != nil) }
        }
        #expect(images == 1)
    }
}

@Suite("Manager: URLs no loader handles (R-5)")
struct ManagerUnsupportedURLTests {
    @Test(
        "Given a URL whose scheme no loader handles, then the load fails with unsupportedURL naming the scheme (SDWebImage completes silently)",
        arguments: ["ftp://host/x.png", "gopher://host/x", "javascript:alert(1)", "foo:bar"])
    func unsupportedScheme(url: String) async throws {
        let loader = ScriptedLoader()
        let (manager, _) = ManagerFixtures.manager(loader: loader)
        do {
            let result = try await manager.loadImage(with: url)
            Issue.record("expected a failure, got \(result)")
        } catch let error as WebImageError {
            guard case .unsupportedURL(let scheme) = error else {
                Issue.record("expected unsupportedURL, got \(error)")
                return
            }
            #expect(scheme == String(url.prefix { $0 != ":" }))
        }
        #expect(loader.totalRequests == 0)
    }
}
