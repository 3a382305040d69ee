import Foundation
import Synchronization
import Testing
@testable import WebImage

/// Progressive previews go through the transformer too, cheaply (SPEC D-8, M-9; SDWebImage and
/// Nuke transform previews, Nuke drops one rather than queue it).
@Suite("Image manager: previews through the transformer (D-8, M-9)")
struct ManagerPreviewTransformTests {
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
