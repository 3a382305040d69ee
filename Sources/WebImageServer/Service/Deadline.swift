import Synchronization

/// Runs `operation` in its own task and returns its result, or throws
/// ``ImageServiceError/timedOut`` once `seconds` have passed (SPEC V-5: a processing deadline
/// per request). At the deadline the operation is cancelled and the caller returns at once,
/// even if the operation is inside work that cannot stop mid-way (a decode on the pool); its
/// late result is dropped. Cancelling the caller cancels the operation too. `whenStopped` runs
/// once the operation has ended, whenever that is.
func withProcessingDeadline<Value: Sendable>(
    seconds: Double,
    whenStopped: @escaping @Sendable () -> Void = {},
    _ operation: @escaping @Sendable () async throws -> Value
) async throws -> Value {
    let outcome = FirstResult<Value>()
    let work = Task {
        defer { whenStopped() }
        return try await operation()
    }
    let timer = Task {
        try await Task.sleep(for: .milliseconds(Int64(max(0, seconds) * 1000)))
        if outcome.finish(.failure(ImageServiceError.timedOut)) { work.cancel() }
    }
    defer { timer.cancel() }
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
            outcome.install(continuation)
            Task {
                do { outcome.finish(.success(try await work.value)) } catch { outcome.finish(.failure(error)) }
            }
        }
    } onCancel: {
        work.cancel()
    }
}

/// The first of several possible outcomes (a result, a deadline, a cancellation), delivered
/// once to one waiting continuation.
final class FirstResult<Value: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Value, any Error>?
        var early: Result<Value, any Error>?
        var done = false
    }
    private let state = Mutex(State())

    func install(_ continuation: CheckedContinuation<Value, any Error>) {
        let early = state.withLock { state -> Result<Value, any Error>? in
            if let early = state.early { return early }
            state.continuation = continuation
            return nil
        }
        if let early { continuation.resume(with: early) }
    }

    /// Delivers `result` if nothing was delivered yet; `true` when it was this one.
    @discardableResult
    func finish(_ result: Result<Value, any Error>) -> Bool {
        let (won, continuation) = state.withLock { state -> (Bool, CheckedContinuation<Value, any Error>?) in
            guard !state.done else { return (false, nil) }
            state.done = true
            if let continuation = state.continuation { state.continuation = nil; return (true, continuation) }
            state.early = result
            return (true, nil)
        }
        continuation?.resume(with: result)
        return won
    }
}
