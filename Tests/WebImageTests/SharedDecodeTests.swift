import Dispatch
import Foundation
import Synchronization
import Testing
import WebImageTesting
@testable import WebImage

/// Decoding is a stage of the load: the download and the cache query yield bytes, and loads
/// that get the same bytes with the same decode options share one decode (SPEC D-3) — a load
/// arriving after the download ended but before its decode ended joins that decode instead of
/// downloading and decoding again. Over the real stack: manager → downloader → loopback
/// server; the decodes are held by a gate and counted.
@Suite("Shared decodes: the decode stage runs once per decode-option group")
struct SharedDecodeTests {
    /// Decodes RAWI images; counts its decodes and holds each until ``open()``.
    final class GatedCoder: ImageCoder {
        private let gate = DispatchGroup()
        private let entered = Mutex(0)

        init() { gate.enter() }

        var decodes: Int { entered.withLock { $0 } }
        func open() { gate.leave() }

        func canDecode(_ data: Data) -> Bool { RawTestCoder.header(data) != nil }

        func decode(_ data: Data, options: DecodeOptions) throws -> Image {
            entered.withLock { $0 += 1 }
            _ = gate.wait(timeout: .now() + 120)  // a forgotten gate cannot hang the test
            guard let (width, height) = RawTestCoder.header(data) else {
                throw WebImageError.badImageData(reason: "not RAWI")
            }
            return RawTestCoder.image(data, width: width, height: height, rows: height, options: options)
        }

        func canEncode(_ format: ImageFormat) -> Bool { false }
        func encode(_ image: Image, format: ImageFormat, options: EncodeOptions) throws -> Data {
            throw WebImageError.unsupportedFormat(format, reason: "decode only")
        }
    }

    /// A manager over a downloader and a loopback server serving `/d.raw` (counted), with a
    /// context decoding through `coder`.
    func withPipeline(
        _ coder: GatedCoder, _ body: (HTTPTestServer, ImageManager, URL, WebImageContext) async throws -> Void
    ) async throws {
        try await withServerAndDownloader { server, downloader in
            server.route("/d.raw", HTTPTestServer.Response.ok(RawTestCoder.encode(width: 8, height: 8)))
            let (manager, _) = ManagerFixtures.manager(loader: downloader)
            var context = WebImageContext()
            context.imageCoders = CodersManager(coders: [coder])
            try await body(server, manager, server.url("/d.raw"), context)
        }
    }

    @Test("Given a load whose download ended and whose decode is held, when a second load of the URL arrives, then it joins the decode: one download, one decode, one image")
    func loadDuringDecodeJoins() async throws {
        let coder = GatedCoder()
        try await withPipeline(coder) { server, manager, url, context in
            let first = Task { try await manager.loadImage(with: url, context: context) }
            // The first load's bytes arrived and its decode is running (held by the gate).
            #expect(await eventually { coder.decodes == 1 })
            #expect(server.requestCount("/d.raw") == 1)
            let second = Task { try await manager.loadImage(with: url, context: context) }
            // The second load reached the decode stage's table and joined the running decode.
            #expect(await eventually { manager.sharedDecodes.counts.joined == 1 })
            coder.open()
            let results = [try await first.value, try await second.value]
            #expect(results.allSatisfy { $0.image?.width == 8 })
            #expect(results.allSatisfy { $0.data == RawTestCoder.encode(width: 8, height: 8) })
            #expect(coder.decodes == 1, "the second load must join the decode, not decode again")
            #expect(server.requestCount("/d.raw") == 1, "nor download again")
            #expect(await eventually { manager.sharedDecodes.entryCount == 0 }, "the entry goes once both loads ended")
        }
    }

    @Test("Given an entry on disk only, when two loads read it at once, then one decode serves both and the image goes to memory")
    func diskEntryDecodedOnce() async throws {
        let coder = GatedCoder()
        try await withPipeline(coder) { server, manager, url, context in
            let bytes = RawTestCoder.encode(width: 6, height: 6)
            try await manager.imageCache.diskCache.storeAndWait(bytes, forKey: url.absoluteString)
            let first = Task { try await manager.loadImage(with: url, options: .fromCacheOnly, context: context) }
            #expect(await eventually { coder.decodes == 1 })
            let second = Task { try await manager.loadImage(with: url, options: .fromCacheOnly, context: context) }
            #expect(await eventually { manager.sharedDecodes.counts.joined == 1 })
            coder.open()
            let results = [try await first.value, try await second.value]
            #expect(results.allSatisfy { $0.image?.width == 6 && $0.cacheType == .disk })
            #expect(coder.decodes == 1)
            #expect(manager.imageCache.imageFromMemoryCache(forKey: url.absoluteString)?.width == 6)
            #expect(server.requestCount("/d.raw") == 0)
        }
    }

    @Test("Given a decode held while its load is cancelled, when no other load waits for it, then nothing is delivered and the table empties")
    func cancelledLoadLeavesNoEntry() async throws {
        let coder = GatedCoder()
        try await withPipeline(coder) { _, manager, url, context in
            let load = Task { try await manager.loadImage(with: url, context: context) }
            #expect(await eventually { coder.decodes == 1 })
            load.cancel()
            await #expect(throws: WebImageError.self) { try await load.value }
            coder.open()
            #expect(await eventually { manager.sharedDecodes.entryCount == 0 })
        }
    }
}

/// The rule for custom loaders: a final result with an image is that image (no decode); one with
/// bytes only is decoded by the manager's decode stage, unless the load wants bytes only.
@Suite("Decode stage: custom loaders' results")
struct CustomLoaderDecodeTests {
    /// Answers every URL with a RAWI image's bytes, decoded or not.
    struct BytesLoader: ImageLoader {
        let decodes: Bool

        func canRequestImage(for url: URL) -> Bool { true }

        func requestImage(
            with url: URL, options: WebImageOptions, context: WebImageContext, progress: ImageLoaderProgress?,
            completed: @escaping ImageLoaderCompletion
        ) -> any ImageLoaderToken {
            let data = RawTestCoder.encode(width: 5, height: 3)
            let image = decodes ? try? RawTestCoder().decode(data, options: DecodeOptions()) : nil
            completed(.success(ImageLoaderResult(image: image, data: data, response: nil, finished: true)))
            return NoToken()
        }
    }

    struct NoToken: ImageLoaderToken {
        func cancel() {}
    }

    func context(_ coder: RawTestCoder) -> WebImageContext {
        var context = WebImageContext()
        context.imageCoders = CodersManager(coders: [coder])
        return context
    }

    @Test("Given a custom loader answering with bytes only, then the manager decodes them with the context's coders")
    func bytesAreDecoded() async throws {
        let coder = RawTestCoder()
        let (manager, _) = ManagerFixtures.manager(loader: BytesLoader(decodes: false))
        let result = try await manager.loadImage(with: URL(string: "custom://a/1")!, context: context(coder))
        #expect(result.image?.width == 5 && result.image?.height == 3)
        #expect(result.data == RawTestCoder.encode(width: 5, height: 3))
        #expect(coder.decodeCount.load(ordering: .relaxed) == 1)
    }

    @Test("Given a custom loader answering with an image, then the decode stage is skipped")
    func imageIsKept() async throws {
        let coder = RawTestCoder()
        let (manager, _) = ManagerFixtures.manager(loader: BytesLoader(decodes: true))
        let result = try await manager.loadImage(with: URL(string: "custom://a/2")!, context: context(coder))
        #expect(result.image?.width == 5)
        #expect(coder.decodeCount.load(ordering: .relaxed) == 0)
    }

    @Test("Given bytes only and avoidDecodeImage, then the load delivers the bytes undecoded")
    func avoidDecodeKeepsBytes() async throws {
        let coder = RawTestCoder()
        let (manager, _) = ManagerFixtures.manager(loader: BytesLoader(decodes: false))
        let result = try await manager.loadImage(
            with: URL(string: "custom://a/3")!, options: .avoidDecodeImage, context: context(coder))
        #expect(result.image == nil)
        #expect(result.data == RawTestCoder.encode(width: 5, height: 3))
        #expect(coder.decodeCount.load(ordering: .relaxed) == 0)
    }
}
