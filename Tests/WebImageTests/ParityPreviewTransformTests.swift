import Foundation
import Synchronization
import Testing
@testable import WebImage

/// Progressive previews go through the transformer too, cheaply (issue #13 item 3; SPEC D-8,
/// M-9; SDWebImage and Nuke transform previews, Nuke drops one rather than queue it).
@Suite("Peer parity: previews through the transformer (D-8, M-9)")
struct ParityPreviewTransformTests {
    /// A loader the test drives by hand: partial images, then the final one.
    final class ManualLoader: ImageLoader {
        private let completion = Mutex<ImageLoaderCompletion?>(nil)
        struct Token: ImageLoaderToken { func cancel() {} }

        var hasRequest: Bool { completion.withLock { $0 != nil } }
        func canRequestImage(for url: URL) -> Bool { true }
        func requestImage(
            with url: URL, options: WebImageOptions, context: WebImageContext, progress: ImageLoaderProgress?,
            completed: @escaping ImageLoaderCompletion
        ) -> any ImageLoaderToken {
            completion.withLock { $0 = completed }
            return Token()
        }
        func send(_ image: Image, finished: Bool) {
            let callback = completion.withLock { $0 }
            callback?(.success(ImageLoaderResult(image: image, data: Data([1, 2, 3]), response: nil, finished: finished)))
        }
    }

    /// Turns any image into a 4×3 one; optionally each transform waits for one `open()`.
    final class ShrinkTransformer: ImageTransformer {
        let transformerKey = "Shrink"
        private let gate: DispatchSemaphore?
        private let started = Mutex(0)
        init(gated: Bool) { gate = gated ? DispatchSemaphore(value: 0) : nil }
        var startedCount: Int { started.withLock { $0 } }
        func open() { gate?.signal() }
        func transform(_ image: Image, key: String) -> Image? {
            started.withLock { $0 += 1 }
            if let gate { _ = gate.wait(timeout: .now() + 120) }  // a forgotten gate cannot hang the test
            let pixels = PixelBuffer.make(width: 4, height: 3) { out in
                for index in 0..<(4 * 3 * 4) { out[index] = 200 }
            }
            return Image(pixels: pixels)
        }
    }

    private func setUp(_ transformer: ShrinkTransformer) -> (ImageManager, ManualLoader, CompletionRecorder) {
        let loader = ManualLoader()
        let (manager, _) = ManagerFixtures.manager(loader: loader)
        var context = WebImageContext()
        context.imageTransformer = transformer
        let results = CompletionRecorder()
        _ = manager.loadImage(
            with: ManagerFixtures.url("preview-\(UUID().uuidString)"), options: [.progressiveLoad], context: context,
            completed: results.handler)
        return (manager, loader, results)
    }

    private func widths(_ results: CompletionRecorder) -> [Int] { results.images.map { $0?.width ?? -1 } }
    private func finals(_ results: CompletionRecorder) -> [Bool] {
        results.all.compactMap { if case .success(let result) = $0 { result.isFinal } else { nil } }
    }

    @Test("Given progressiveLoad and a transformer, when previews arrive, then they are delivered transformed, then the final")
    func previewsTransformed() async throws {
        let transformer = ShrinkTransformer(gated: false)
        let (manager, loader, results) = setUp(transformer)
        #expect(await eventually { loader.hasRequest })
        loader.send(ManagerFixtures.image(), finished: false)
        #expect(await eventually { results.count == 1 })
        loader.send(ManagerFixtures.image(seed: 1), finished: false)
        #expect(await eventually { results.count == 2 })
        loader.send(ManagerFixtures.image(seed: 2), finished: true)
        #expect(await eventually { results.count == 3 })
        #expect(widths(results) == [4, 4, 4], "previews are transformed like the final image")
        #expect(finals(results) == [false, false, true])
        #expect(transformer.startedCount == 3)
        withExtendedLifetime(manager) {}
    }

    @Test("Given a preview being transformed, when newer previews and the final arrive, then the newer previews are dropped and the final comes after the one in flight")
    func busyPreviewDropsNewer() async throws {
        let transformer = ShrinkTransformer(gated: true)
        let (manager, loader, results) = setUp(transformer)
        #expect(await eventually { loader.hasRequest })
        loader.send(ManagerFixtures.image(), finished: false)
        #expect(await eventually { transformer.startedCount == 1 })
        loader.send(ManagerFixtures.image(seed: 1), finished: false)  // dropped: one is in flight
        loader.send(ManagerFixtures.image(seed: 2), finished: false)  // dropped
        loader.send(ManagerFixtures.image(seed: 3), finished: true)  // waits for the preview in flight
        transformer.open()  // the preview
        transformer.open()  // the final
        #expect(await eventually { results.count == 2 })
        #expect(widths(results) == [4, 4])
        #expect(finals(results) == [false, true], "the preview in flight comes first, nothing after the final")
        #expect(transformer.startedCount == 2, "dropped previews are never transformed")
        withExtendedLifetime(manager) {}
    }
}
