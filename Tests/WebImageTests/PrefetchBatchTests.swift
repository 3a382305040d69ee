import Foundation
import Testing
@testable import WebImage

/// Prefetch batches with settings of their own.
@Suite("Prefetcher: each batch keeps its settings")
struct PrefetchBatchTests {
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
