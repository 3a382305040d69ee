/// Runs one operation per key at a time; concurrent callers with the same key share its result
/// (SPEC V-8: identical concurrent requests fetch and render once).
///
/// A caller whose task is cancelled (its client went away) stops counting as interested; when no
/// interested caller is left, the shared operation is cancelled too, so an abandoned download
/// stops and frees its place.
actor SingleFlight<Key: Hashable & Sendable, Value: Sendable> {
    private struct Flight {
        var task: Task<Value, any Error>
        var interested: Int
    }
    private var running: [Key: Flight] = [:]

    /// The result of `operation` for `key`, started now or joined if already running.
    func run(_ key: Key, _ operation: @escaping @Sendable () async throws -> Value) async throws -> Value {
        let task: Task<Value, any Error>
        if let flight = running[key], !flight.task.isCancelled {
            task = flight.task
            running[key]?.interested += 1
        } else {
            task = Task { try await operation() }
            running[key] = Flight(task: task, interested: 1)
        }
        defer { if running[key]?.task == task { running[key] = nil } }
        return try await withTaskCancellationHandler {
            try await task.value
        } onCancel: {
            Task { await self.lostInterest(key, task) }
        }
    }

    private func lostInterest(_ key: Key, _ task: Task<Value, any Error>) {
        guard running[key]?.task == task else { return }
        running[key]?.interested -= 1
        if let flight = running[key], flight.interested <= 0 { flight.task.cancel() }
    }
}
