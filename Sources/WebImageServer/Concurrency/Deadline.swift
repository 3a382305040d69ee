import Synchronization

/// Runs `operation` in its own task and returns its result, or throws
/// ``ImageServiceError/timedOut`` once `seconds` have passed (SPEC V-5: a processing deadline
/// per request). At the deadline the operation is cancelled and the caller returns at once,
/// even if the operation is inside work that cannot stop mid-way (a decode on the pool); its
/// late result is dropped. Cancelling the caller cancels the operation too. `whenStopped` runs
/// once the operation has ended, whenever that is, and before its result is delivered.
///
/// One task per call: the operation's task delivers its own result, and the deadline is an
/// entry on the shared ``DeadlineClock`` (no timer task to start and to wake for cancelling).
func withProcessingDeadline<Value: Sendable>(
    seconds: Double,
    whenStopped: @escaping @Sendable () -> Void = {},
    _ operation: @escaping @Sendable () async throws -> Value
) async throws -> Value {
    let outcome = FirstResult<Value>()
    let work = Task {
        let result: Result<Value, any Error>
        do { result = .success(try await operation()) } catch { result = .failure(error) }
        whenStopped()
        outcome.finish(result)
    }
    let deadline = DeadlineClock.shared.schedule(at: .now + .milliseconds(Int64(max(0, seconds) * 1000))) {
        if outcome.finish(.failure(ImageServiceError.timedOut)) { work.cancel() }
    }
    defer { DeadlineClock.shared.cancel(deadline) }
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
            outcome.install(continuation)
        }
    } onCancel: {
        work.cancel()
    }
}
