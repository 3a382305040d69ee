import Metrics
import Prometheus

/// The service's swift-metrics series (SPEC V-9), recorded through the service's own
/// Prometheus registry (not the process-wide bootstrap, so several services can live in one
/// process) and exported as Prometheus text on `/metrics`.
struct ServiceMetrics: Sendable {
    /// Where the series live.
    let registry = PrometheusCollectorRegistry()
    var factory: PrometheusMetricsFactory { PrometheusMetricsFactory(registry: registry) }

    /// The Prometheus text exposition of every series.
    func exposition() -> String { registry.emitToString() }
    func recordSource(layer: String, bytes: Int, duration: Duration) {
        Counter(label: "webimage_source_fetches_total", dimensions: [("layer", layer)], factory: factory).increment()
        Counter(label: "webimage_bytes_in_total", dimensions: [], factory: factory).increment(by: bytes)
        if layer == "origin" {
            Timer(label: "webimage_stage_duration_seconds", dimensions: [("stage", "download")], factory: factory).recordNanoseconds(Self.nanoseconds(duration))
        }
    }

    func recordStage(_ stage: String, _ duration: Duration) {
        Timer(label: "webimage_stage_duration_seconds", dimensions: [("stage", stage)], factory: factory).recordNanoseconds(Self.nanoseconds(duration))
    }

    /// One source decode, at full size (`scale="1"`) or reduced on load (`scale="1/2"` …).
    func recordDecode(scaleDenominator: Int) {
        let scale = scaleDenominator == 1 ? "1" : "1/\(scaleDenominator)"
        Counter(label: "webimage_decodes_total", dimensions: [("scale", scale)], factory: factory).increment()
    }

    func recordResultCache(hit: Bool, layer: String) {
        Counter(label: "webimage_cache_lookups_total", dimensions: [("layer", layer), ("result", hit ? "hit" : "miss")], factory: factory).increment()
    }

    func recordBytesOut(_ bytes: Int) {
        Counter(label: "webimage_bytes_out_total", dimensions: [], factory: factory).increment(by: bytes)
    }

    func queueRejected() {
        Counter(label: "webimage_queue_rejected_total", dimensions: [], factory: factory).increment()
    }

    func setQueue(depth: Int) {
        Gauge(label: "webimage_in_flight", dimensions: [], factory: factory).record(max(0, depth))
    }

    func recordRequest(status: Int, duration: Duration) {
        Counter(label: "webimage_requests_total", dimensions: [("status", String(status))], factory: factory).increment()
        Timer(label: "webimage_request_duration_seconds", dimensions: [], factory: factory).recordNanoseconds(Self.nanoseconds(duration))
    }

    static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
