import Foundation
import Synchronization
import Testing
@testable import WebImage

/// Progressive previews in the memory cache (Nuke's previews in memory): a second view of the
/// same URL shows the preview while the download goes on; the final image replaces it; previews
/// never reach the disk.
@Suite("Image manager: previews in memory (D-8, K-1)")
struct ManagerPreviewMemoryTests {
    private func previews(_ results: CompletionRecorder) -> [(isFinal: Bool, cacheType: ImageCacheType, width: Int)] {
        results.all.compactMap {
            if case .success(let result) = $0 { (result.isFinal, result.cacheType, result.image?.width ?? -1) } else { nil }
        }
    }

    @Test("Given a progressive download with a preview out, when a second view loads the URL, then it shows the preview at once, both get the final, and the preview leaves memory without touching the disk")
    func secondViewSeesPreview() async throws {
        let loader = BroadcastLoader()
        let (manager, cache) = ManagerFixtures.manager(loader: loader)
        let url = ManagerFixtures.url("preview-memory")
        let key = manager.cacheKey(for: url)!
        let previewKey = ImageCache.previewCacheKey(for: key)
        let first = CompletionRecorder()
        _ = manager.loadImage(with: url, options: [.progressiveLoad, .waitStoreCache], completed: first.handler)
        #expect(await eventually { loader.requestCount == 1 })
        let partial = CacheFixtures.image(width: 24, height: 8)
        loader.send(partial, data: Data([1]), finished: false)
        #expect(await eventually { first.count == 1 })
        #expect(cache.imageFromMemoryCache(forKey: previewKey) === partial, "the preview is kept in memory")
        #expect(cache.imageFromMemoryCache(forKey: key) == nil, "a preview never stands for the final image")

        // A second view: the preview first, from memory, while the download goes on.
        let second = CompletionRecorder()
        _ = manager.loadImage(with: url, options: [.progressiveLoad, .waitStoreCache], completed: second.handler)
        #expect(await eventually { second.count == 1 })
        #expect(second.images.first.flatMap { $0 } === partial)
        #expect(previews(second).first?.isFinal == false)
        #expect(previews(second).first?.cacheType == .memory)
        // A view that takes no previews waits for the final image.
        let plain = CompletionRecorder()
        _ = manager.loadImage(with: url, options: [.waitStoreCache], completed: plain.handler)

        #expect(await eventually { loader.requestCount == 3 })
        loader.send(ManagerFixtures.image(), data: try ManagerFixtures.data(), finished: true)
        #expect(await eventually { first.count == 2 && second.count == 2 && plain.count == 1 })
        #expect(previews(first).map(\.isFinal) == [false, true])
        #expect(previews(second).map(\.isFinal) == [false, true])
        #expect(previews(plain).map(\.isFinal) == [true])
        #expect(await eventually { cache.imageFromMemoryCache(forKey: previewKey) == nil }, "the final image replaces the preview")
        #expect(cache.imageFromMemoryCache(forKey: key)?.width == 24)
        #expect(cache.diskCache.data(for: previewKey) == nil, "previews never reach the disk")
        #expect(cache.diskCache.data(for: key) != nil)
    }
}
