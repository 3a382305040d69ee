import Dispatch
import Foundation
import Synchronization
import Testing
import WebImageTesting
@testable import WebImage

/// Coalescing as callers see it: switched off, each caller downloads on its own; on, callers of
/// one URL share a download, and those asking for different thumbnail sizes decode side by side
/// over the processing pool, not one after another on one thread (SPEC D-3, C-7).
@Suite("Downloader coalescing: the switch, and shared bodies decoded side by side (D-3, C-7)")
struct LoadingCoalescedDecodeTests {
    @Test("Given coalescing switched off, then concurrent requests for one URL are separate downloads; on, one", arguments: [false, true])
    func coalescingSwitch(coalesces: Bool) async throws {
        var configuration = testDownloaderConfiguration()
        configuration.coalescesDownloads = coalesces
        try await withServerAndDownloader(configuration: configuration) { server, downloader in
            let gate = HTTPTestServer.Gate()
            server.route("/c.raw", HTTPTestServer.Response.ok(RawTestCoder.encode(width: 4, height: 4)).with { $0.gate = gate })
            let url = server.url("/c.raw")
            let results = Recorder<Result<ImageLoaderResult, WebImageError>>()
            let tokens = (0..<3).map { _ in downloader.downloadImage(with: url) { results.append($0) } }
            gate.open()
            #expect(await eventually { results.count == 3 })
            #expect(server.requestCount("/c.raw") == (coalesces ? 1 : 3))
            #expect(results.values.allSatisfy { (try? $0.get().image?.width) == 4 })
            #expect(tokens.allSatisfy { $0.isFinished })
        }
    }

    @Test("Given ten callers with ten thumbnail sizes on one download, when it completes, then their decodes run concurrently on the pool and each gets its size")
    func thumbnailDecodesSpread() async throws {
        let coder = OverlapCoder()
        var configuration = testDownloaderConfiguration()
        configuration.coders = CodersManager(coders: [coder])
        configuration.processingPool = ProcessingPool(name: "test.spread", width: 4)
        try await withServerAndDownloader(configuration: configuration) { server, downloader in
            let gate = HTTPTestServer.Gate()
            server.route("/big.raw", HTTPTestServer.Response.ok(RawTestCoder.encode(width: 64, height: 64)).with { $0.gate = gate })
            let widths = Recorder<Int>()
            let sizes = (0..<10).map { 20 + 2 * $0 }
            for size in sizes {
                var context = WebImageContext()
                context.imageThumbnailPixelSize = PixelSize(width: size, height: size)
                _ = downloader.downloadImage(with: server.url("/big.raw"), context: context) { result in
                    widths.append((try? result.get().image?.width) ?? -1)
                }
            }
            #expect(await eventually { gate.waitingCount == 1 })
            gate.open()
            #expect(await eventually { widths.count == 10 })
            #expect(Set(widths.values) == Set(sizes), "each caller gets its own thumbnail size")
            #expect(coder.decodes == 10, "one decode per distinct size")
            #expect(coder.maxInFlight >= 2, "the decodes must run side by side, not one after another")
            #expect(server.requestCount("/big.raw") == 1)
        }
    }
}
