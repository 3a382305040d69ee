import CoreMetrics
import Dispatch
import Logging

/// The pipeline's counters and timers (SPEC X-7), reported through swift-metrics to the factory
/// an ``ImageManager`` was made with — by default the one the application bootstraps (none by
/// default: then they cost next to nothing).
///
/// | metric | kind | dimensions |
/// |---|---|---|
/// | `webimage_requests_total` | counter | — |
/// | `webimage_cache_hits_total` | counter | `layer`: memory / disk |
/// | `webimage_cache_misses_total` | counter | — |
/// | `webimage_downloads_total` | counter | — |
/// | `webimage_download_bytes_total` | counter | — |
/// | `webimage_failures_total` | counter | `error`: the ``/WebImageCore/WebImageError/code`` |
/// | `webimage_blacklist_hits_total` | counter | — |
/// | `webimage_load_duration_seconds` | timer | `source`: memory / disk / network (memory hits on the fast path are counted, not timed) |
/// | `webimage_decode_duration_seconds` | timer | `stage`: download / disk / file |
/// | `webimage_transform_duration_seconds` | timer | — |
/// | `webimage_running_operations` | gauge | — |
///
/// Decode durations are measured where decoding happens (the downloader, the local loader, the
/// image cache), which serve several managers, so they always go to the bootstrapped factory.
struct PipelineMetrics: Sendable {
    static let logger = Logger(label: "swift-web-image.manager")

    let requests: Counter
    let memoryHits: Counter
    let diskHits: Counter
    let misses: Counter
    let downloads: Counter
    let downloadBytes: Counter
    let blacklistHits: Counter
    let transformDuration: CoreMetrics.Timer
    let runningOperations: Gauge
    private let memoryLoadDuration: CoreMetrics.Timer
    private let diskLoadDuration: CoreMetrics.Timer
    private let networkLoadDuration: CoreMetrics.Timer
    private let factory: any MetricsFactory

    /// The pipeline's metrics, made by `factory`.
    init(factory: any MetricsFactory) {
        self.factory = factory
        requests = Counter(label: "webimage_requests_total", factory: factory)
        memoryHits = Counter(label: "webimage_cache_hits_total", dimensions: [("layer", "memory")], factory: factory)
        diskHits = Counter(label: "webimage_cache_hits_total", dimensions: [("layer", "disk")], factory: factory)
        misses = Counter(label: "webimage_cache_misses_total", factory: factory)
        downloads = Counter(label: "webimage_downloads_total", factory: factory)
        downloadBytes = Counter(label: "webimage_download_bytes_total", factory: factory)
        blacklistHits = Counter(label: "webimage_blacklist_hits_total", factory: factory)
        transformDuration = CoreMetrics.Timer(label: "webimage_transform_duration_seconds", factory: factory)
        runningOperations = Gauge(label: "webimage_running_operations", factory: factory)
        memoryLoadDuration = CoreMetrics.Timer(
            label: "webimage_load_duration_seconds", dimensions: [("source", "memory")], factory: factory)
        diskLoadDuration = CoreMetrics.Timer(
            label: "webimage_load_duration_seconds", dimensions: [("source", "disk")], factory: factory)
        networkLoadDuration = CoreMetrics.Timer(
            label: "webimage_load_duration_seconds", dimensions: [("source", "network")], factory: factory)
    }

    /// Counts a failed load under its error code.
    func failure(_ error: WebImageError) {
        Counter(label: "webimage_failures_total", dimensions: [("error", error.code)], factory: factory).increment()
    }

    /// Records the time from `start` (uptime nanoseconds) to now under the result's source.
    func loadDuration(source: ImageCacheType, since start: UInt64) {
        let timer: CoreMetrics.Timer
        switch source {
        case .memory: timer = memoryLoadDuration
        case .disk: timer = diskLoadDuration
        case .none, .all: timer = networkLoadDuration
        }
        timer.recordNanoseconds(Int64(DispatchTime.now().uptimeNanoseconds &- start))
    }

    private static let decodeTimers: [String: CoreMetrics.Timer] = Dictionary(
        uniqueKeysWithValues: ["download", "disk", "file"].map {
            ($0, CoreMetrics.Timer(label: "webimage_decode_duration_seconds", dimensions: [("stage", $0)]))
        })

    /// Runs `decode` and records its duration under `stage` (download, disk or file).
    static func timedDecode<T>(_ stage: String, _ decode: () throws -> T) rethrows -> T {
        let start = DispatchTime.now().uptimeNanoseconds
        defer { decodeTimers[stage]?.recordNanoseconds(Int64(DispatchTime.now().uptimeNanoseconds &- start)) }
        return try decode()
    }
}
