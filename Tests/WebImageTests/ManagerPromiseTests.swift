import Dispatch
import Foundation
import Synchronization
import Testing
import WebImage

/// A loader that records the options and context of every request and hands it to `base`.
final class RecordingLoader: ImageLoader {
    private let base: ScriptedLoader
    private let recorded = Mutex<[WebImageOptions]>([])

    init(base: ScriptedLoader) { self.base = base }

    var options: [WebImageOptions] { recorded.withLock { $0 } }

    func canRequestImage(for url: URL) -> Bool { base.canRequestImage(for: url) }

    func requestImage(
        with url: URL, options: WebImageOptions, context: WebImageContext, progress: ImageLoaderProgress?,
        completed: @escaping ImageLoaderCompletion
    ) -> any ImageLoaderToken {
        recorded.withLock { $0.append(options) }
        return base.requestImage(with: url, options: options, context: context, progress: progress, completed: completed)
    }
}

/// A loader that keeps each request's callbacks so the test can report progress, partial
/// images and the end itself, from whichever thread it likes.
final class HandDrivenLoader: ImageLoader {
    final class Token: ImageLoaderToken {
        func cancel() {}
    }

    private let callbacks = Mutex<[(progress: ImageLoaderProgress?, completed: ImageLoaderCompletion)]>([])

    var requestCount: Int { callbacks.withLock { $0.count } }

    func canRequestImage(for url: URL) -> Bool { true }

    func requestImage(
        with url: URL, options: WebImageOptions, context: WebImageContext, progress: ImageLoaderProgress?,
        completed: @escaping ImageLoaderCompletion
    ) -> any ImageLoaderToken {
        callbacks.withLock { $0.append((progress, completed)) }
        return Token()
    }

    /// Reports progress of the first request.
    func reportProgress(_ received: Int64, of expected: Int64, url: URL) {
        callbacks.withLock { $0.first?.progress }?(received, expected, url)
    }

    /// Delivers a result to the first request.
    func complete(_ result: Result<ImageLoaderResult, WebImageError>) {
        callbacks.withLock { $0.first?.completed }?(result)
    }
}

/// The manager's documented defaults and per-request overrides, and its delivery rules (SPEC
/// M-1, M-6, M-10, P-1). Serialised: the first test sets the process-wide defaults, which no
/// other test uses.
@Suite("Image manager promises: defaults, context overrides, delivery after cancel", .serialized)
struct ManagerPromiseTests {
    @Test("Given defaultImageCache and defaultImageLoader set before first use, then ImageManager() and ImageManager.shared load through them")
    func sharedUsesTheDefaults() async throws {
        let loader = ScriptedLoader()
        let (_, cache) = ManagerFixtures.manager(loader: loader)
        ImageManager.defaultImageCache = cache
        ImageManager.defaultImageLoader = loader
        #expect(ImageManager.defaultImageCache === cache)

        let made = ImageManager()
        #expect(made.imageCache === cache)
        #expect((made.imageLoader as? ScriptedLoader) === loader)

        let shared = ImageManager.shared
        #expect(shared.imageCache === cache)
        #expect((shared.imageLoader as? ScriptedLoader) === loader)
        let url = ManagerFixtures.url("shared")
        loader.script(url, .data(try ManagerFixtures.data()))
        let result = try await shared.loadImage(with: url, options: .waitStoreCache)
        #expect(result.image?.width == 24 && result.cacheType == .none)
        #expect(loader.requestCount(url) == 1)
        #expect(cache.diskCache.contains(url.absoluteString))
    }

    @Test("Given a context with imageCache and imageLoader, then the load uses those, not the manager's")
    func contextCacheAndLoaderOverride() async throws {
        let managerLoader = ScriptedLoader()
        let (manager, managerCache) = ManagerFixtures.manager(loader: managerLoader)
        let otherLoader = ScriptedLoader()
        let (_, otherCache) = ManagerFixtures.manager(loader: otherLoader)
        let url = ManagerFixtures.url("override")
        managerLoader.script(url, .data(try ManagerFixtures.data(seed: 1)))
        otherLoader.script(url, .data(try ManagerFixtures.data(seed: 2)))

        var context = WebImageContext()
        context.imageLoader = otherLoader
        context.imageCache = otherCache
        let result = try await manager.loadImage(with: url, options: .waitStoreCache, context: context)
        #expect(result.image?.frames[0].pixels.pixel(x: 0, y: 8).r == 2, "the image of the context's loader")
        #expect(otherLoader.requestCount(url) == 1)
        #expect(managerLoader.totalRequests == 0)
        #expect(otherCache.diskCache.contains(url.absoluteString))
        #expect(!managerCache.diskCache.contains(url.absoluteString))
        #expect(managerCache.imageFromMemoryCache(forKey: url.absoluteString) == nil)

        // The context's cache is also the one queried: a second load is its memory hit.
        let again = try await manager.loadImage(with: url, context: context)
        #expect(again.cacheType == .memory && otherLoader.requestCount(url) == 1)
    }

    @Test("Given a prefetcher over one manager and a context with customManager, then the prefetch loads through the custom manager")
    func customManagerOverride() async throws {
        let ownLoader = ScriptedLoader()
        let (own, _) = ManagerFixtures.manager(loader: ownLoader)
        let customLoader = ScriptedLoader()
        let (custom, customCache) = ManagerFixtures.manager(loader: customLoader)
        let url = ManagerFixtures.url("custom")
        ownLoader.script(url, .data(try ManagerFixtures.data()))
        customLoader.script(url, .data(try ManagerFixtures.data()))

        var context = WebImageContext()
        context.customManager = custom
        let prefetcher = ImagePrefetcher(manager: own, context: context)
        let done = Mutex<(Int, Int)?>(nil)
        prefetcher.prefetchURLs([url], options: .waitStoreCache, completed: { finished, skipped in done.withLock { $0 = (finished, skipped) } })
        #expect(await eventually { done.withLock { $0 } != nil })
        let counts = done.withLock { $0 }
        #expect(counts?.0 == 1 && counts?.1 == 0, "finished, skipped: \(String(describing: counts))")
        #expect(customLoader.requestCount(url) == 1)
        #expect(ownLoader.totalRequests == 0)
        #expect(customCache.diskCache.contains(url.absoluteString))
    }

    @Test("Given a prefetcher with its default options, then its loads reach the loader with lowPriority")
    func prefetchIsLowPriority() async throws {
        let scripted = ScriptedLoader()
        let loader = RecordingLoader(base: scripted)
        let (manager, _) = ManagerFixtures.manager(loader: loader)
        let url = ManagerFixtures.url("low")
        scripted.script(url, .data(try ManagerFixtures.data()))
        let prefetcher = ImagePrefetcher(manager: manager)
        let done = Mutex(false)
        prefetcher.prefetchURLs([url], completed: { _, _ in done.withLock { $0 = true } })
        #expect(await eventually { done.withLock { $0 } })
        #expect(loader.options.count == 1)
        #expect(loader.options.allSatisfy { $0.contains(.lowPriority) && !$0.contains(.highPriority) })

        // A plain load of another URL is not low priority: the option comes from the prefetcher.
        let plain = ManagerFixtures.url("plain")
        scripted.script(plain, .data(try ManagerFixtures.data()))
        _ = try await manager.loadImage(with: plain)
        #expect(loader.options.count == 2 && !loader.options[1].contains(.lowPriority))
    }

    @Test("Given progress and a partial image queued on a busy callback queue, when the load is cancelled, then only the cancellation is delivered")
    func nothingAfterCancel() async throws {
        let loader = HandDrivenLoader()
        let (manager, _) = ManagerFixtures.manager(loader: loader)
        let queue = DispatchQueue(label: "test.callbacks")
        manager.callbackQueue = .queue(queue)
        // The callback queue is held busy until the test lets it go, so whatever the manager
        // sends it waits there, in order.
        let hold = DispatchSemaphore(value: 0)
        let holding = DispatchSemaphore(value: 0)
        queue.async {
            holding.signal()
            _ = hold.wait(timeout: .now() + 60)
        }
        #expect(holding.wait(timeout: .now() + 60) == .success)

        let events = Recorder<String>()
        let url = ManagerFixtures.url("cancelled")
        let operation = manager.loadImage(
            with: url, options: [.fromLoaderOnly, .progressiveLoad],
            progress: { received, _, _ in events.append("progress \(received)") },
            completed: { result in
                switch result {
                case .success(let value): events.append(value.isFinal ? "image" : "partial")
                case .failure(let error): events.append(error.code)
                }
            })
        #expect(await eventually { loader.requestCount == 1 })
        loader.reportProgress(10, of: 100, url: url)
        let partial = ImageLoaderResult(image: ManagerFixtures.image(), data: Data([1]), response: nil, finished: false)
        loader.complete(.success(partial))
        operation?.cancel()
        // Anything the loader sends after the cancel is dropped at once.
        loader.reportProgress(20, of: 100, url: url)
        loader.complete(.success(partial))

        hold.signal()
        queue.sync {}
        #expect(events.values == ["cancelled"])
        #expect(manager.runningOperationCount == 0)
    }

    @Test("Given progress and a partial image on the .current queue before a cancel, then they are delivered before the cancellation and nothing after it")
    func orderBeforeCancel() async throws {
        let loader = HandDrivenLoader()
        let (manager, _) = ManagerFixtures.manager(loader: loader)
        let events = Recorder<String>()
        let url = ManagerFixtures.url("current")
        let operation = manager.loadImage(
            with: url, options: [.fromLoaderOnly, .progressiveLoad],
            progress: { received, _, _ in events.append("progress \(received)") },
            completed: { result in
                switch result {
                case .success(let value): events.append(value.isFinal ? "image" : "partial")
                case .failure(let error): events.append(error.code)
                }
            })
        #expect(await eventually { loader.requestCount == 1 })
        loader.reportProgress(10, of: 100, url: url)
        let partial = ImageLoaderResult(image: ManagerFixtures.image(), data: Data([1]), response: nil, finished: false)
        loader.complete(.success(partial))
        operation?.cancel()
        loader.reportProgress(20, of: 100, url: url)
        loader.complete(.success(partial))
        #expect(events.values == ["progress 10", "partial", "cancelled"])
    }
}
