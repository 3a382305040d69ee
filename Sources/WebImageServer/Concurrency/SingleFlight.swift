import Synchronization

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
        /// The callers' outcomes, each given the result by the operation's task itself (no
        /// task per caller to wait for it).
        let waiters: FlightWaiters<Value>
    }
    private var running: [Key: Flight] = [:]

    /// The result of `operation` for `key`, started now or joined if already running.
    func run(_ key: Key, _ operation: @escaping @Sendable () async throws -> Value) async throws -> Value {
        let task: Task<Value, any Error>
        let waiters: FlightWaiters<Value>
        if let flight = running[key], !flight.task.isCancelled {
            task = flight.task
            waiters = flight.waiters
            running[key]?.interested += 1
        } else {
            let made = FlightWaiters<Value>()
            task = Task {
                do {
                    let value = try await operation()
                    made.finish(.success(value))
                    return value
                } catch {
                    made.finish(.failure(error))
                    throw error
                }
            }
            waiters = made
            running[key] = Flight(task: task, interested: 1, waiters: made)
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
                waiters.add(outcome)
            }
        } onCancel: {
            Task { await self.lostInterest(key, task, outcome) }
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
            Task {
                _ = try? await task.value
                outcome.finish(.failure(CancellationError()))
            }
        } else {
            outcome.finish(.failure(CancellationError()))
        }
    }
}

/// The outcomes waiting for one flight's operation, and its result once it is known: the
/// operation's task hands the result to every waiter that joined, and a waiter that joins
/// later gets it at once.
final class FlightWaiters<Value: Sendable>: Sendable {
    private struct State {
        var waiting: [FirstResult<Value>] = []
        var result: Result<Value, any Error>?
    }
    private let state = Mutex(State())

    /// Delivers the result to `outcome` when it is known, now if it already is.
    func add(_ outcome: FirstResult<Value>) {
        let known = state.withLock { state -> Result<Value, any Error>? in
            if let result = state.result { return result }
            state.waiting.append(outcome)
            return nil
        }
        if let known { outcome.finish(known) }
    }

    /// The operation ended with `result`: every waiter gets it.
    func finish(_ result: Result<Value, any Error>) {
        let waiting = state.withLock { state -> [FirstResult<Value>] in
            state.result = result
            defer { state.waiting = [] }
            return state.waiting
        }
        for outcome in waiting { outcome.finish(result) }
    }
}
