import Foundation
import Testing
import WebImage

/// The async API with a non-optional image (``ImageManager/image(for:options:context:progress:)``).
@Suite("Image manager: image(for:) returns the image or throws (M-8, M-11)")
struct ManagerImageResponseTests {
    @Test("Given a download, then image(for:) returns its image, and the second call the same image from memory")
    func downloadThenMemory() async throws {
        let loader = ScriptedLoader()
        let (manager, _) = ManagerFixtures.manager(loader: loader)
        let url = ManagerFixtures.url("response")
        let data = try ManagerFixtures.data()
        loader.script(url, .data(data))
        let first = try await manager.image(for: url)
        #expect(first.image.width == 24 && first.cacheType == .none && first.data == data && first.url == url)
        let second = try await manager.image(for: url)
        #expect(second.cacheType == .memory && second.image === first.image)
        #expect(loader.requestCount(url) == 1)
    }

    @Test("Given fromCacheOnly and nothing cached, then image(for:) throws where loadImage returns no image")
    func nothingCachedThrows() async throws {
        let loader = ScriptedLoader()
        let (manager, _) = ManagerFixtures.manager(loader: loader)
        let url = ManagerFixtures.url("absent")
        let result = try await manager.loadImage(with: url, options: .fromCacheOnly)
        #expect(result.image == nil)
        do {
            _ = try await manager.image(for: url, options: .fromCacheOnly)
            Issue.record("a load with nothing cached and no download returned an image")
        } catch {
            #expect(error.code == "invalidDownloadOperation")
        }
        #expect(loader.totalRequests == 0)
    }

    @Test("Given avoidDecodeImage, then image(for:) throws, naming the option")
    func bytesOnlyThrows() async throws {
        let loader = ScriptedLoader()
        let (manager, _) = ManagerFixtures.manager(loader: loader)
        let url = ManagerFixtures.url("bytes")
        loader.script(url, .data(try ManagerFixtures.data()))
        do {
            _ = try await manager.image(for: url, options: .avoidDecodeImage)
            Issue.record("a bytes-only load returned an image")
        } catch {
            #expect("\(error)".contains("avoidDecodeImage"))
        }
    }

    @Test("Given a failing download, then image(for:) throws the loader's error")
    func failureThrows() async throws {
        let loader = ScriptedLoader()
        let (manager, _) = ManagerFixtures.manager(loader: loader)
        let url = ManagerFixtures.url("missing")
        loader.script(url, .error(.invalidDownloadStatusCode(404)))
        do {
            _ = try await manager.image(for: url)
            Issue.record("a 404 returned an image")
        } catch {
            guard case .invalidDownloadStatusCode(404) = error else {
                Issue.record("got \(error)")
                return
            }
        }
    }
}

/// The synchronous prefix keeps the synchronous query options (SPEC Q-1).
@Suite("Image manager: the synchronous query options end a disk hit before loadImage returns")
struct ManagerSynchronousQueryTests {
    @Test("Given queryDiskDataSync and an image only on disk, then the completion runs before loadImage returns, from disk, with nothing left running")
    func diskHitIsSynchronous() async throws {
        let loader = ScriptedLoader()
        let (manager, cache) = ManagerFixtures.manager(loader: loader)
        let url = ManagerFixtures.url("sync-disk")
        try await cache.store(nil, imageData: try ManagerFixtures.data(), forKey: url.absoluteString, cacheType: .disk)
        let recorder = CompletionRecorder()
        var context = WebImageContext()
        context.callbackQueue = .current
        let operation = manager.loadImage(with: url, options: .queryDiskDataSync, context: context, completed: recorder.handler)
        #expect(operation == nil)
        #expect(recorder.count == 1 && recorder.cacheTypes == [.disk])
        #expect(recorder.images.first??.width == 24)
        #expect(manager.runningOperationCount == 0)
        #expect(loader.totalRequests == 0)
    }

    @Test("Given queryDiskDataSync and nothing cached, then the load goes on from the miss and downloads once")
    func diskMissGoesOn() async throws {
        let loader = ScriptedLoader()
        let (manager, _) = ManagerFixtures.manager(loader: loader)
        let url = ManagerFixtures.url("sync-miss")
        loader.script(url, .data(try ManagerFixtures.data()))
        let result = try await manager.loadImage(with: url, options: .queryDiskDataSync)
        #expect(result.cacheType == .none && result.image?.width == 24)
        #expect(loader.requestCount(url) == 1)
    }
}
