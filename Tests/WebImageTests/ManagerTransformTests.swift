import Dispatch
import Foundation
import Synchronization
import Testing
import WebImageTesting
@testable import WebImage

/// Loads with a transformer: what the result carries, and a transform that never starts once
/// its load is cancelled.
@Suite("Image manager: transformed loads (M-6, M-9)")
struct ManagerTransformTests {
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
}
