import Dispatch
import Foundation
import Synchronization
import Testing
@testable import WebImage
import WebImageTesting

/// Issue #13 item 9 (Nuke's shared processing): loads coalesced onto one download that ask for
/// the same transformer run it once; a shared prefix (`[A]` and `[A, B]`) runs `A` once. Over
/// the real stack: manager → downloader → loopback server (requests counted there).
@Suite("Shared processing: coalesced loads transform once")
struct SharedProcessingTests {
    /// A transformer that counts its calls and holds each call until ``open()``; its output is a
    /// new image (the same pixels), so results can be told apart by identity.
    final class GatedTransformer: ImageTransformer {
        let transformerKey: String
        private let gate = DispatchGroup()
        private let calls = Mutex(0)

        init(_ key: String, gated: Bool = true) {
            transformerKey = key
            if gated { gate.enter() }
        }

        var callCount: Int { calls.withLock { $0 } }
        func open() { gate.leave() }

        func transform(_ image: Image, key: String) -> Image? {
            calls.withLock { $0 += 1 }
            _ = gate.wait(timeout: .now() + 120)  // a forgotten gate cannot hang the test
            return image.mappingFrames { $0 }
        }
    }

    /// A server route held until every load joined its download, a manager over a downloader.
    func withPipeline(
        _ body: (HTTPTestServer, ImageManager, CountingLoader, HTTPTestServer.Gate) async throws -> Void
    ) async throws {
        var configuration = ImageDownloaderConfiguration()
        configuration.downloadTimeout = TestTimeouts.download
        configuration.maximumDownloadDuration = TestTimeouts.request
        try await withServerAndDownloader(configuration: configuration) { server, downloader in
            let gate = HTTPTestServer.Gate()
            server.route("/shared.webp", HTTPTestServer.Response.ok(try ManagerFixtures.data(), contentType: "image/webp").with { $0.gate = gate })
            let loader = CountingLoader(downloader)
            let (_, cache) = ManagerFixtures.manager(loader: loader)
            let manager = ImageManager(cache: cache, loader: loader)
            manager.callbackQueue = .current
            try await body(server, manager, loader, gate)
        }
    }

    func context(_ transformer: any ImageTransformer) -> WebImageContext {
        var context = WebImageContext()
        context.imageTransformer = transformer
        return context
    }

    @Test("Given five coalesced loads with one transformer, then it runs once and every load gets its result")
    func sameTransformerOnce() async throws {
        try await withPipeline { server, manager, loader, gate in
            let url = server.url("/shared.webp")
            let transformer = GatedTransformer("A")
            let recorders = (0..<5).map { _ in CompletionRecorder() }
            for recorder in recorders {
                manager.loadImage(with: url, context: context(transformer), completed: recorder.handler)
            }
            #expect(await eventually { loader.requestCount == 5 })
            gate.open()
            // Every load has reached the transform (one runs it, held; the others wait for it).
            #expect(await eventually { manager.sharedTransforms.counts.requested == 5 })
            transformer.open()
            #expect(await eventually { recorders.allSatisfy { $0.count == 1 } })
            #expect(transformer.callCount == 1)
            #expect(manager.sharedTransforms.counts.joined == 4)
            let images = recorders.compactMap { $0.images.first ?? nil }
            #expect(images.count == 5 && images.allSatisfy { $0 === images[0] }, "one shared result")
            #expect(server.requestCount("/shared.webp") == 1)
        }
    }

    @Test("Given coalesced loads with [A] and [A, B], then A runs once and B runs on its result")
    func sharedPrefix() async throws {
        try await withPipeline { server, manager, loader, gate in
            let url = server.url("/shared.webp")
            let a = GatedTransformer("A")
            let b = GatedTransformer("B", gated: false)
            let alone = CompletionRecorder()
            let piped = CompletionRecorder()
            manager.loadImage(with: url, context: context(a), completed: alone.handler)
            manager.loadImage(with: url, context: context(PipelineTransformer([a, b])), completed: piped.handler)
            #expect(await eventually { loader.requestCount == 2 })
            gate.open()
            #expect(await eventually { manager.sharedTransforms.counts.requested == 2 })
            a.open()
            #expect(await eventually { alone.count == 1 && piped.count == 1 })
            #expect(a.callCount == 1 && b.callCount == 1)
            let first = try #require(alone.images.first ?? nil)
            let second = try #require(piped.images.first ?? nil)
            #expect(first !== second, "[A, B] is B applied to A's result")
            #expect(first.pixelSize == second.pixelSize)
            #expect(server.requestCount("/shared.webp") == 1)
        }
    }

    @Test("Given two loads sharing a transform, when one is cancelled, then the other still gets the transformed image")
    func cancelOneSharer() async throws {
        try await withPipeline { server, manager, loader, gate in
            let url = server.url("/shared.webp")
            let transformer = GatedTransformer("A")
            let cancelled = CompletionRecorder()
            let kept = CompletionRecorder()
            let operation = manager.loadImage(with: url, context: context(transformer), completed: cancelled.handler)
            manager.loadImage(with: url, context: context(transformer), completed: kept.handler)
            #expect(await eventually { loader.requestCount == 2 })
            gate.open()
            #expect(await eventually { manager.sharedTransforms.counts.requested == 2 })
            operation?.cancel()
            transformer.open()
            #expect(await eventually { cancelled.count == 1 && kept.count == 1 })
            #expect(cancelled.errorCodes == ["cancelled"])
            #expect(kept.errorCodes.isEmpty && kept.images.first??.pixelSize == PixelSize(width: 24, height: 16))
            #expect(transformer.callCount == 1)
            #expect(server.requestCount("/shared.webp") == 1)
        }
    }
}
