import Dispatch
import Foundation
import Synchronization
import Testing
@testable import WebImage

/// A transform is shared until its result is stored: a load that gets the same decoded image
/// after the transform finished, while the first load is still storing, takes that result
/// instead of running the transformer again. Deterministic: the first load is held inside its
/// store (a cache serializer waiting at a gate, with `waitStoreCache`) while the second load's
/// image is handed over.
@Suite("Shared processing: a finished transform is reused until its result is stored")
struct SharedProcessingLifetimeTests {
    /// A loader that holds every request until the test hands it a result.
    final class HandOverLoader: ImageLoader {
        final class Token: ImageLoaderToken {
            let completion: ImageLoaderCompletion
            init(_ completion: @escaping ImageLoaderCompletion) { self.completion = completion }
            func cancel() { completion(.failure(.cancelled)) }
        }

        private let held = Mutex<[Token]>([])

        var heldCount: Int { held.withLock { $0.count } }

        /// Completes the `index`th request (in arrival order) with `result`.
        func complete(_ index: Int, with result: ImageLoaderResult) {
            let token = held.withLock { $0[index] }
            token.completion(.success(result))
        }

        func canRequestImage(for url: URL) -> Bool { true }

        func requestImage(
            with url: URL, options: WebImageOptions, context: WebImageContext, progress: ImageLoaderProgress?,
            completed: @escaping ImageLoaderCompletion
        ) -> any ImageLoaderToken {
            let token = Token(completed)
            held.withLock { $0.append(token) }
            return token
        }
    }

    /// A cache serializer that waits at a gate (once opened, for good) and counts its calls.
    final class GatedSerializer: CacheSerializer {
        private let gate = DispatchGroup()
        private let calls = Mutex(0)

        init() { gate.enter() }

        var callCount: Int { calls.withLock { $0 } }
        func open() { gate.leave() }

        func cacheData(for image: Image, originalData: Data?, key: String) -> Data? {
            calls.withLock { $0 += 1 }
            _ = gate.wait(timeout: .now() + 120)  // a forgotten gate cannot hang the test
            return originalData
        }
    }

    @Test("Given a load storing a transformed image, when a second load gets the same image, then the transform is not run again")
    func reusedUntilStored() async throws {
        let loader = HandOverLoader()
        let (manager, _) = ManagerFixtures.manager(loader: loader)
        let transformer = SharedProcessingTests.GatedTransformer("A", gated: false)
        let serializer = GatedSerializer()
        var context = WebImageContext()
        context.imageTransformer = transformer
        context.cacheSerializer = serializer
        let url = ManagerFixtures.url("lifetime")
        let first = CompletionRecorder()
        let second = CompletionRecorder()
        manager.loadImage(with: url, options: [.waitStoreCache], context: context, completed: first.handler)
        manager.loadImage(with: url, options: [.waitStoreCache], context: context, completed: second.handler)
        #expect(await eventually { loader.heldCount == 2 })

        // Both loads get the same decoded image, as loads coalesced onto one download do.
        let downloaded = ImageLoaderResult(
            image: ManagerFixtures.image(), data: try ManagerFixtures.data(), response: nil, finished: true)
        loader.complete(0, with: downloaded)
        // The first load transformed and is now held inside its store.
        #expect(await eventually { serializer.callCount == 1 })
        #expect(transformer.callCount == 1)

        loader.complete(1, with: downloaded)
        #expect(await eventually { manager.sharedTransforms.counts.requested == 2 })
        serializer.open()
        #expect(await eventually { first.count == 1 && second.count == 1 })
        #expect(transformer.callCount == 1, "the finished transform is reused, not run again")
        #expect(manager.sharedTransforms.counts.joined == 1)
        let images = (first.images + second.images).compactMap { $0 }
        #expect(images.count == 2 && images[0] === images[1], "one shared result")
        // Both loads ended: the finished transform is no longer kept.
        #expect(await eventually { manager.sharedTransforms.entryCount == 0 })
    }
}
