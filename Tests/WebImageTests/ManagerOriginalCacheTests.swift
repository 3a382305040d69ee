import Foundation
import Testing
@testable import WebImage

/// The original of a transformed or thumbnailed image in a cache of its own (SDWebImage's
/// `originalImageCache` context, SPEC Q-5).
@Suite("Image manager: original image cache (Q-5, M-9)")
struct ManagerOriginalCacheTests {
    private func otherCache() -> ImageCache {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-original-\(UUID().uuidString)")
        return ImageCache(directory: directory, pool: ProcessingPool(name: "test.original", width: 2))
    }

    @Test("Given originalImageCache, when a transformed image downloads, then the original goes to that cache and the transformed one to the load's cache")
    func storesOriginalElsewhere() async throws {
        let loader = ScriptedLoader()
        let (manager, cache) = ManagerFixtures.manager(loader: loader)
        let originals = otherCache()
        let url = ManagerFixtures.url("original-store")
        loader.script(url, .data(try ManagerFixtures.data()))
        var context = WebImageContext()
        context.imageTransformer = InvertTransformer()
        context.originalImageCache = originals
        context.originalStoreCacheType = .all
        let result = try await manager.loadImage(with: url, options: [.waitStoreCache], context: context)
        #expect(result.image != nil)
        let originalKey = url.absoluteString
        let finalKey = manager.cacheKey(for: url, context: context)!
        #expect(originalKey != finalKey)
        // The original: in the original cache, memory and disk.
        #expect(originals.imageFromMemoryCache(forKey: originalKey) != nil)
        #expect(originals.diskCache.data(for: originalKey) != nil)
        // Not in the load's cache.
        #expect(cache.imageFromMemoryCache(forKey: originalKey) == nil)
        #expect(cache.diskCache.data(for: originalKey) == nil)
        // The transformed image: in the load's cache only.
        #expect(cache.imageFromMemoryCache(forKey: finalKey) != nil)
        #expect(originals.imageFromMemoryCache(forKey: finalKey) == nil)
        #expect(loader.requestCount(url) == 1)
    }

    @Test("Given the original only in originalImageCache, when a transformed load queries originals, then it derives from it without downloading")
    func queriesOriginalElsewhere() async throws {
        let loader = ScriptedLoader()
        let (manager, cache) = ManagerFixtures.manager(loader: loader)
        let originals = otherCache()
        let url = ManagerFixtures.url("original-query")
        loader.script(url, .data(try ManagerFixtures.data()))
        try await originals.store(nil, imageData: try ManagerFixtures.data(), forKey: url.absoluteString, cacheType: .disk)
        var context = WebImageContext()
        context.imageTransformer = InvertTransformer()
        context.originalImageCache = originals
        context.originalQueryCacheType = .all
        let result = try await manager.loadImage(with: url, context: context)
        #expect(result.image?.width == 24)
        #expect(result.cacheType == .disk)
        #expect(loader.totalRequests == 0, "the original was in originalImageCache: no download")
        // The derived image lands in the load's cache.
        #expect(cache.imageFromMemoryCache(forKey: manager.cacheKey(for: url, context: context)!) != nil)

        // Without originalImageCache the same load finds no original and downloads.
        var plain = WebImageContext()
        plain.imageTransformer = InvertTransformer(key: "Invert-2")
        plain.originalQueryCacheType = .all
        _ = try await manager.loadImage(with: url, context: plain)
        #expect(loader.requestCount(url) == 1)
    }
}
