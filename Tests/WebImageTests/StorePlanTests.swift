import Foundation
import Testing

@testable import WebImage

/// Where a load's images go (``StorePlan``), decided from the request and what the load
/// produced: keys, caches, layers and bytes of every write.
@Suite("Store plan")
struct StorePlanTests {
    let url = ManagerFixtures.url("plan")
    let cache = ImageCache(
        directory: FileManager.default.temporaryDirectory.appendingPathComponent("webimage-plan-\(UUID().uuidString)"))

    func request(_ context: WebImageContext) -> ImageLoadRequest {
        ImageLoadRequest(
            url: url, keys: ImageLoadRequest.keys(for: url, context: context), options: [], context: context,
            cache: cache, loader: ScriptedLoader(), progress: nil, startTime: 0)
    }

    func downloaded() throws -> ImageLoaderResult {
        ImageLoaderResult(image: ManagerFixtures.image(), data: try ManagerFixtures.data(), response: nil, finished: true)
    }

    @Test("Given no transform and no thumbnail, then the image and its bytes go under the one key, in every layer")
    func oneKey() throws {
        let value = try downloaded()
        let plan = StorePlan(download: value, final: value.image, transformed: false, request: request(WebImageContext()))
        #expect(plan.writes.count == 1)
        let write = try #require(plan.writes.first)
        #expect(write.key == url.absoluteString && write.cacheType == .all)
        #expect(write.image === value.image && write.data == value.data && write.extendedData != nil)
    }

    @Test("Given a transform that ran, then the original's bytes go to disk under the original key and the result under the final key")
    func transformed() throws {
        var context = WebImageContext()
        context.imageTransformer = InvertTransformer()
        let request = request(context)
        let value = try downloaded()
        let result = ManagerFixtures.image(seed: 9)
        let plan = StorePlan(download: value, final: result, transformed: true, request: request)
        #expect(plan.writes.map(\.key) == [request.originalKey, request.finalKey].compactMap { $0 })
        #expect(plan.writes.map(\.cacheType) == [.disk, .all])
        #expect(plan.writes[0].data == value.data && plan.writes[0].image === value.image)
        #expect(plan.writes[1].data == nil && plan.writes[1].image === result && plan.writes[1].extendedData == nil)
        #expect(!plan.writes[0].storesInMemory && plan.writes[1].storesInMemory)
    }

    @Test("Given a transform that declined, then only the original is stored")
    func declined() throws {
        var context = WebImageContext()
        context.imageTransformer = InvertTransformer()
        let request = request(context)
        let value = try downloaded()
        let plan = StorePlan(download: value, final: value.image, transformed: false, request: request)
        #expect(plan.writes.map(\.key) == [request.originalKey].compactMap { $0 })
    }

    @Test("Given a thumbnail, then the original is stored as bytes only and the thumbnail under the final key")
    func thumbnail() throws {
        var context = WebImageContext()
        context.imageThumbnailPixelSize = PixelSize(width: 8, height: 8)
        context.originalStoreCacheType = .all
        let request = request(context)
        let value = try downloaded()
        let plan = StorePlan(download: value, final: value.image, transformed: false, request: request)
        #expect(plan.writes.count == 2)
        #expect(plan.writes[0].image == nil && plan.writes[0].data == value.data && plan.writes[0].cacheType == .all)
        #expect(plan.writes[1].key == request.finalKey && plan.writes[1].data == nil)
    }

    @Test("Given a key filter that declines, or a none cache type, then nothing is stored")
    func nothing() throws {
        var declined = WebImageContext()
        declined.cacheKeyFilter = CacheKeyFilterClosure { _ in nil }
        let value = try downloaded()
        #expect(StorePlan(download: value, final: value.image, transformed: false, request: request(declined)).writes.isEmpty)
        var none = WebImageContext()
        none.storeCacheType = ImageCacheType.none
        #expect(StorePlan(download: value, final: value.image, transformed: false, request: request(none)).writes.isEmpty)
    }

    @Test("Given an image derived from the cached original, then it goes under the final key only")
    func derived() {
        var context = WebImageContext()
        context.imageTransformer = InvertTransformer()
        let request = request(context)
        let plan = StorePlan(derived: ManagerFixtures.image(), request: request)
        #expect(plan.writes.map(\.key) == [request.finalKey].compactMap { $0 })
        #expect(plan.writes.first?.cacheType == .all)
    }
}
