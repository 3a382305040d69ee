import Metrics
import Prometheus
import Synchronization

/// The service's swift-metrics series (SPEC V-9), recorded through the service's own
/// Prometheus registry (not the process-wide bootstrap, so several services can live in one
/// process) and exported as Prometheus text on `/metrics`.
///
/// The series every request touches are made once, at start: making a swift-metrics handle
/// looks its series up in the registry (a lock, label checks and hashing), too much to do
/// several times per result-cache hit.
final class ServiceMetrics: Sendable {
    /// Where the series live.
    let registry = PrometheusCollectorRegistry()
    private let factory: PrometheusMetricsFactory
    private let bytesIn: MetricCounter
    private let bytesOut: MetricCounter
    private let queueRejections: MetricCounter
    private let inFlight: MetricGauge
    private let requestDuration: MetricTimer
    private let stages: [String: MetricTimer]
    private let memoryHit: MetricCounter
    private let memoryMiss: MetricCounter
    private let notModified: MetricCounter
    private let renders: MetricCounter
    private let shedConnections: MetricCounter
    private let resultStore: [ResultStoreEvent: MetricCounter]
    /// Handles made on first use (status codes, source layers), by their label value.
    private let requestCounters = Mutex<[Int: MetricCounter]>([:])
    private let sourceCounters = Mutex<[String: MetricCounter]>([:])

    init() {
        factory = PrometheusMetricsFactory(registry: registry)
        bytesIn = MetricCounter(label: "webimage_bytes_in_total", dimensions: [], factory: factory)
        bytesOut = MetricCounter(label: "webimage_bytes_out_total", dimensions: [], factory: factory)
        queueRejections = MetricCounter(label: "webimage_queue_rejected_total", dimensions: [], factory: factory)
        inFlight = MetricGauge(label: "webimage_in_flight", dimensions: [], factory: factory)
        requestDuration = MetricTimer(label: "webimage_request_duration_seconds", dimensions: [], factory: factory)
        var stages: [String: MetricTimer] = [:]
        for stage in ["download", "decode", "process", "encode"] {
            stages[stage] = MetricTimer(label: "webimage_stage_duration_seconds", dimensions: [("stage", stage)], factory: factory)
        }
        self.stages = stages
        memoryHit = MetricCounter(label: "webimage_cache_lookups_total", dimensions: [("layer", "memory"), ("result", "hit")], factory: factory)
        memoryMiss = MetricCounter(label: "webimage_cache_lookups_total", dimensions: [("layer", "memory"), ("result", "miss")], factory: factory)
        notModified = MetricCounter(label: "webimage_cache_lookups_total", dimensions: [("layer", "not-modified"), ("result", "hit")], factory: factory)
        renders = MetricCounter(label: "webimage_renders_total", dimensions: [], factory: factory)
        shedConnections = MetricCounter(label: "webimage_idle_connections_closed_total", dimensions: [], factory: factory)
        var resultStore: [ResultStoreEvent: MetricCounter] = [:]
        for event in ResultStoreEvent.allCases {
            resultStore[event] = MetricCounter(label: "webimage_result_store_\(event.rawValue)_total", dimensions: [], factory: factory)
        }
        self.resultStore = resultStore
    }

    /// The Prometheus text exposition of every series.
    func exposition() -> String { registry.emitToString() }

    func recordSource(layer: String, bytes: Int, duration: Duration) {
        let counter = sourceCounters.withLock { counters in
            if let counter = counters[layer] { return counter }
            let counter = MetricCounter(label: "webimage_source_fetches_total", dimensions: [("layer", layer)], factory: factory)
            counters[layer] = counter
            return counter
        }
        counter.increment()
        bytesIn.increment(by: bytes)
        if layer == "origin" { stages["download"]?.recordNanoseconds(Self.nanoseconds(duration)) }
    }

    func recordStage(_ stage: String, _ duration: Duration) {
        stages[stage]?.recordNanoseconds(Self.nanoseconds(duration))
    }

    /// One source decode, at full size (`scale="1"`) or reduced on load (`scale="1/2"` …).
    func recordDecode(scaleDenominator: Int) {
        let scale = scaleDenominator == 1 ? "1" : "1/\(scaleDenominator)"
        Counter(label: "webimage_decodes_total", dimensions: [("scale", scale)], factory: factory).increment()
    }

    /// One result's quality search (`aq`) or `best` choice and its encodes
    /// (`webimage_autoquality_searches_total` and `webimage_autoquality_encodes_total`, or
    /// `webimage_best_format_*`: the ratio is the average encodes a request).
    func recordQualitySearch(encodes: Int, best: Bool) {
        let prefix = best ? "webimage_best_format" : "webimage_autoquality"
        Counter(label: "\(prefix)_searches_total", dimensions: [], factory: factory).increment()
        Counter(label: "\(prefix)_encodes_total", dimensions: [], factory: factory).increment(by: encodes)
    }

    /// A lookup in the result cache (`memory`) or an `If-None-Match` answered (`not-modified`).
    func recordResultCache(hit: Bool, layer: String) {
        if layer == "not-modified" { notModified.increment() } else if hit { memoryHit.increment() } else { memoryMiss.increment() }
    }

    /// One result rendered on the pool (not a cache or store hit, not a pass-through).
    func recordRender() { renders.increment() }

    /// An idle keep-alive connection closed at the client cap.
    func recordShedConnection() { shedConnections.increment() }

    /// One result-store lookup, write or failure.
    func recordResultStore(_ event: ResultStoreEvent) { resultStore[event]?.increment() }

    func recordBytesOut(_ bytes: Int) { bytesOut.increment(by: bytes) }

    func queueRejected() { queueRejections.increment() }

    func setQueue(depth: Int) { inFlight.record(max(0, depth)) }

    func recordRequest(status: Int, duration: Duration) {
        let counter = requestCounters.withLock { counters in
            if let counter = counters[status] { return counter }
            let counter = MetricCounter(label: "webimage_requests_total", dimensions: [("status", String(status))], factory: factory)
            counters[status] = counter
            return counter
        }
        counter.increment()
        requestDuration.recordNanoseconds(Self.nanoseconds(duration))
    }

    static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
