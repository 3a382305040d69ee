/// Runs one operation per key at a time; concurrent callers with the same key share its result
/// (SPEC V-8: identical concurrent requests fetch and render once).
///
/// A caller whose task is cancelled (its client went away, its deadline passed) stops counting
/// as interested; when no interested caller is left, the shared operation is cancelled too, and
/// that last caller returns once the operation has stopped, so whoever holds a place for it
/// frees the place only when the work is over. Other cancelled callers return at once.
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
            task = requestTask { try await operation() }
            running[key] = Flight(task: task, interested: 1)
        }
        // A caller that got the outcome ends the flight; a cancelled one leaves it to the others
        // (`lostInterest` ends it when nobody is left), so later identical requests still join.
        defer { if running[key]?.task == task, !Task.isCancelled { running[key] = nil } }
        // A cancelled caller stops counting as interested; it stops waiting at once unless it
        // was the last one (see ``lostInterest(_:_:_:)``).
        let outcome = FirstResult<Value>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
                outcome.install(continuation)
                requestTask {
                    do { outcome.finish(.success(try await task.value)) } catch { outcome.finish(.failure(error)) }
                }
            }
        } onCancel: {
            requestTask { await self.lostInterest(key, task, outcome) }
        }
    }

    /// Callers waiting for the operation running for `key` (0 when none runs).
    func interested(in key: Key) -> Int { running[key]?.interested ?? 0 }

    /// A caller was cancelled: the last interested one cancels the operation and is answered
    /// when it has stopped; any other is answered now.
    private func lostInterest(_ key: Key, _ task: Task<Value, any Error>, _ outcome: FirstResult<Value>) {
        guard running[key]?.task == task else {
            outcome.finish(.failure(CancellationError()))
            return
        }
        running[key]?.interested -= 1
        if let flight = running[key], flight.interested <= 0 {
            flight.task.cancel()
            running[key] = nil
            requestTask {
                _ = try? await task.value
                outcome.finish(.failure(CancellationError()))
            }
        } else {
            outcome.finish(.failure(CancellationError()))
        }
    }
}
