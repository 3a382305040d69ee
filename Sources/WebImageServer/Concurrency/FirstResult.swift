import Synchronization

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
