import Metrics

// swift-metrics' handle types under names that do not clash with swift-prometheus' own
// `Counter`/`Gauge` (``ServiceMetrics`` imports both modules).
typealias MetricCounter = Counter
typealias MetricGauge = Gauge
typealias MetricTimer = Timer
