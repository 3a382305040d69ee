import Dispatch
import Logging
import CoreMetrics

/// The pipeline's counters and timers (SPEC X-7), reported through swift-metrics to whatever
/// backend the application bootstraps (none by default: then they cost next to nothing).
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
enum PipelineMetrics {
    static let logger = Logger(label: "swift-web-image.manager")

    static let requests = Counter(label: "webimage_requests_total")
    static let memoryHits = Counter(label: "webimage_cache_hits_total", dimensions: [("layer", "memory")])
    static let diskHits = Counter(label: "webimage_cache_hits_total", dimensions: [("layer", "disk")])
    static let misses = Counter(label: "webimage_cache_misses_total")
    static let downloads = Counter(label: "webimage_downloads_total")
    static let downloadBytes = Counter(label: "webimage_download_bytes_total")
    static let blacklistHits = Counter(label: "webimage_blacklist_hits_total")
    static let transformDuration = CoreMetrics.Timer(label: "webimage_transform_duration_seconds")
    static let runningOperations = Gauge(label: "webimage_running_operations")

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

    static func failure(_ error: WebImageError) {
        Counter(label: "webimage_failures_total", dimensions: [("error", error.code)]).increment()
    }

    private static let memoryLoadDuration = CoreMetrics.Timer(
        label: "webimage_load_duration_seconds", dimensions: [("source", "memory")])
    private static let diskLoadDuration = CoreMetrics.Timer(
        label: "webimage_load_duration_seconds", dimensions: [("source", "disk")])
    private static let networkLoadDuration = CoreMetrics.Timer(
        label: "webimage_load_duration_seconds", dimensions: [("source", "network")])

    static func loadDuration(source: ImageCacheType, since start: UInt64) {
        let timer: CoreMetrics.Timer
        switch source {
        case .memory: timer = memoryLoadDuration
        case .disk: timer = diskLoadDuration
        case .none, .all: timer = networkLoadDuration
        }
        timer.recordNanoseconds(Int64(DispatchTime.now().uptimeNanoseconds &- start))
    }
}
