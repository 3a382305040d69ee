import Foundation
import Testing
import WebImageTesting
@testable import WebImage

/// The keys images are cached under with thumbnail and transformer contexts, as the cache and
/// the manager compute them and as users ask for them.
@Suite("Cache keys: thumbnails and transformers (Q-1, Q-4, M-9)")
struct CacheKeyTests {
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
}
