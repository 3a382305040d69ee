/// `work`'s value, or ``ResultStoreTimedOut`` after `seconds`: the caller goes on at the
/// timeout, and `work` is cancelled (a call that ignores cancellation finishes unobserved).
func withResultStoreTimeout<T: Sendable>(
    _ seconds: Double, _ work: @escaping @Sendable () async throws -> T
) async throws -> T {
    let first = FirstResult<T>()
    let worker = Task {
        do { first.finish(.success(try await work())) } catch { first.finish(.failure(error)) }
    }
    let timer = Task {
        try? await Task.sleep(for: .milliseconds(Int64(max(0, seconds) * 1000)))
        if first.finish(.failure(ResultStoreTimedOut(seconds: seconds))) { worker.cancel() }
    }
    defer { timer.cancel() }
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { first.install($0) }
    } onCancel: {
        first.finish(.failure(CancellationError()))
        worker.cancel()
    }
}
