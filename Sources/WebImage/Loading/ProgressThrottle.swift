/// Decides when progress is worth reporting (SPEC D-7): a pure value.
///
/// With a known total, a report fires when at least `minimumInterval` (a fraction 0…1 of the
/// total) arrived since the last report, and always once at completion. With an unknown total,
/// every chunk is reported. Reported sizes never decrease.
struct ProgressThrottle {
    let minimumInterval: Double
    let expected: Int64?
    private(set) var lastReported: Int64 = -1

    init(minimumInterval: Double, expected: Int64?) {
        self.minimumInterval = min(1, max(0, minimumInterval.isFinite ? minimumInterval : 0))
        self.expected = expected
    }

    /// Whether `received` bytes should be reported now (records it if so).
    mutating func shouldReport(_ received: Int64) -> Bool {
        guard received > lastReported else { return false }
        if let expected, expected > 0, received < expected {
            let step = Int64((Double(expected) * minimumInterval).rounded(.up))
            let since = lastReported < 0 ? received : received - lastReported
            guard since >= max(1, step) else { return false }
        }
        lastReported = received
        return true
    }

    /// Whether the final report (all `received` bytes) is still due (records it if so).
    mutating func shouldReportCompletion(_ received: Int64) -> Bool {
        guard received != lastReported else { return false }
        lastReported = received
        return true
    }
}
