import Foundation
import MetricsTestKit
import Testing
import WebImage
import WebImageTesting

/// The pipeline's swift-metrics (SPEC X-7), read from a `TestMetrics` factory given to one
/// manager, so no global bootstrap is needed and parallel suites do not interfere.
@Suite("Image manager metrics (X-7)")
struct ManagerMetricsTests {
    /// The manager under test, its metrics, the scripted loader and its cache.
    private struct Fixture {
        let metrics = TestMetrics()
        let loader = ScriptedLoader()
        let cache: ImageCache
        let manager: ImageManager

        init() {
            let directory = FileManager.default.temporaryDirectory
                .appendingPathComponent("webimage-metrics-\(UUID().uuidString)")
            cache = ImageCache(directory: directory, pool: ProcessingPool(name: "test.metrics", width: 2))
            manager = ImageManager(cache: cache, loader: loader, metricsFactory: metrics)
            manager.callbackQueue = .current
        }

        func counter(_ label: String, _ dimensions: [(String, String)] = []) throws -> Int64 {
            try metrics.expectCounter(label, dimensions).totalValue
        }

        func timings(_ label: String, _ dimensions: [(String, String)] = []) throws -> Int {
            try metrics.expectTimer(label, dimensions).values.count
        }
    }

    @Test("Given loads that miss, hit memory, hit disk, transform, fail, meet the failed-URL list and have no URL, then each is counted and timed where it happened")
    func countsEveryStage() async throws {
        let fixture = Fixture()
        let manager = fixture.manager
        let data = try ManagerFixtures.data()
        let url = ManagerFixtures.url("metrics")
        fixture.loader.script(url, .data(data))

        // A miss and a download.
        _ = try await manager.loadImage(with: url, options: .waitStoreCache)
        #expect(try fixture.counter("webimage_requests_total") == 1)
        #expect(try fixture.counter("webimage_cache_misses_total") == 1)
        #expect(try fixture.counter("webimage_downloads_total") == 1)
        #expect(try fixture.counter("webimage_download_bytes_total") == Int64(data.count))
        #expect(try fixture.timings("webimage_load_duration_seconds", [("source", "network")]) == 1)

        // A memory hit on the fast path: counted, not timed.
        #expect(try await manager.loadImage(with: url).cacheType == .memory)
        #expect(try fixture.counter("webimage_cache_hits_total", [("layer", "memory")]) == 1)

        // A disk hit.
        fixture.cache.clearMemory()
        #expect(try await manager.loadImage(with: url).cacheType == .disk)
        #expect(try fixture.counter("webimage_cache_hits_total", [("layer", "disk")]) == 1)
        #expect(try fixture.timings("webimage_load_duration_seconds", [("source", "disk")]) == 1)

        // A transformed copy is not cached yet: a second miss, download and a transform.
        var context = WebImageContext()
        context.imageTransformer = InvertTransformer()
        _ = try await manager.loadImage(with: url, options: .waitStoreCache, context: context)
        #expect(try fixture.counter("webimage_cache_misses_total") == 2)
        #expect(try fixture.counter("webimage_downloads_total") == 2)
        #expect(try fixture.counter("webimage_download_bytes_total") == Int64(2 * data.count))
        #expect(try fixture.timings("webimage_transform_duration_seconds") == 1)

        // A 404 is a failure under its code; the URL is then blocked without a download.
        let missing = ManagerFixtures.url("missing")
        await #expect(throws: WebImageError.self) { try await manager.loadImage(with: missing) }
        let notFound = WebImageError.invalidDownloadStatusCode(404).code
        #expect(try fixture.counter("webimage_failures_total", [("error", notFound)]) == 1)
        await #expect(throws: WebImageError.self) { try await manager.loadImage(with: missing) }
        #expect(try fixture.counter("webimage_blacklist_hits_total") == 1)
        #expect(try fixture.counter("webimage_downloads_total") == 3)

        // Strings that are no URL, through the async and the callback API.
        await #expect(throws: WebImageError.self) { try await manager.loadImage(with: "") }
        let recorder = CompletionRecorder()
        manager.loadImage(with: "no scheme", completed: recorder.handler)
        #expect(recorder.errorCodes == [WebImageError.invalidURL(nil).code])
        let invalid = WebImageError.invalidURL(nil).code
        #expect(try fixture.counter("webimage_failures_total", [("error", invalid)]) == 2)

        #expect(try fixture.counter("webimage_requests_total") == 8)
        #expect(try fixture.counter("webimage_cache_hits_total", [("layer", "memory")]) == 1)
        #expect(try fixture.counter("webimage_cache_hits_total", [("layer", "disk")]) == 1)
        #expect(try fixture.counter("webimage_cache_misses_total") == 3)
    }

    @Test("Given held loads, then the running-operations gauge rises with them and returns to zero when they end")
    func runningOperationsGauge() async throws {
        let fixture = Fixture()
        let urls = (0..<3).map { ManagerFixtures.url("held-\($0)") }
        let data = try ManagerFixtures.data()
        let recorder = CompletionRecorder()
        for url in urls {
            fixture.loader.script(url, .hold)
            _ = fixture.manager.loadImage(with: url, options: .fromLoaderOnly, progress: nil, completed: recorder.handler)
        }
        #expect(await eventually { fixture.loader.heldCount == 3 })
        let gauge = try fixture.metrics.expectGauge("webimage_running_operations")
        #expect(gauge.values.max() == 3)
        for url in urls { fixture.loader.release(url, with: .data(data)) }
        #expect(await eventually { recorder.count == 3 && gauge.lastValue == 0 })
        #expect(fixture.manager.runningOperationCount == 0)
    }

    @Test("Given two managers with their own factories, then each counts only its own requests")
    func managersAreSeparate() async throws {
        let first = Fixture(), second = Fixture()
        await #expect(throws: WebImageError.self) { try await first.manager.loadImage(with: "") }
        #expect(try first.counter("webimage_requests_total") == 1)
        #expect(try second.counter("webimage_requests_total") == 0)
    }
}
