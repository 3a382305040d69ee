import Foundation
import Testing
import WebImage
import WebImageTesting

/// An SVG loaded through the manager with a thumbnail size: drawn at that size (larger than the
/// document) and cached under the thumbnail key like any other thumbnail.
@Suite("SVG thumbnails through the pipeline")
struct VectorThumbnailCacheTests {
    static let svg = Data(#"<svg xmlns="http://www.w3.org/2000/svg" width="120" height="60"><rect width="60" height="60" fill="red"/></svg>"#.utf8)

    @Test("Given an SVG and a thumbnail size larger than it, then the drawing at that size is cached under the thumbnail key")
    func thumbnailKey() async throws {
        let loader = ScriptedLoader()
        let (manager, cache) = ManagerFixtures.manager(loader: loader)
        let url = URL(string: "test://images.invalid/shape.svg")!
        loader.script(url, .data(Self.svg))
        var context = WebImageContext()
        let box = PixelSize(width: 480, height: 480)
        context.imageThumbnailPixelSize = box
        let thumb = try await manager.loadImage(with: url, options: .waitStoreCache, context: context)
        #expect(thumb.image?.pixelSize == PixelSize(width: 480, height: 240))
        let thumbKey = ImageCache.thumbnailCacheKey(for: url.absoluteString, thumbnailPixelSize: box, preserveAspectRatio: true)
        #expect(cache.imageFromMemoryCache(forKey: thumbKey)?.pixelSize == PixelSize(width: 480, height: 240))
        #expect(cache.imageFromMemoryCache(forKey: url.absoluteString) == nil)

        let again = try await manager.loadImage(with: url, context: context)
        #expect(again.cacheType == .memory && again.image?.width == 480)
        let full = try await manager.loadImage(with: url)
        #expect(full.image?.pixelSize == PixelSize(width: 120, height: 60))
        #expect(loader.requestCount(url) == 1)
    }
}
