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
    let work = requestTask {
        defer { whenStopped() }
        return try await operation()
    }
    let timer = RequestTimer.after(.milliseconds(Int64(max(0, seconds) * 1000))) {
        if outcome.finish(.failure(ImageServiceError.timedOut)) { work.cancel() }
    }
    defer { timer.cancel() }
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
            outcome.install(continuation)
            requestTask {
                do { outcome.finish(.success(try await work.value)) } catch { outcome.finish(.failure(error)) }
            }
        }
    } onCancel: {
        work.cancel()
    }
}
