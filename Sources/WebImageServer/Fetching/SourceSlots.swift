import Synchronization

/// Bounds the requests that hold a fetched source, and so the memory sources take (the
/// `fetch-ahead` setting): a request takes a slot before it fetches its source and gives it back once its
/// answer is encoded, so at most `workers + fetchAhead` encoded sources are held at once —
/// `workers` rendering and `fetchAhead` fetched ahead of a free worker. Without the setting every
/// admitted request may fetch at once (``unbounded``). Waiters are served in arrival order; a
/// waiter whose task is cancelled (its processing deadline, its client gone) leaves the line
/// without taking a slot.
final class SourceSlots: Sendable {
    private struct Waiter {
        var id: UInt64
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var free: Int
        var waiters: [Waiter] = []
        var nextID: UInt64 = 0
    }

    private let state: Mutex<State>
    /// Slots in all; nil when unbounded.
    let capacity: Int?

    /// Slots for `workers` rendering requests and `fetchAhead` more; unbounded for nil.
    init(workers: Int, fetchAhead: Int?) {
        capacity = fetchAhead.map { max(1, workers) + max(0, $0) }
        state = Mutex(State(free: capacity ?? 0))
    }

    /// Takes a slot, waiting in line while none is free.
    /// - Throws: `CancellationError` when the task is cancelled before it got one.
    func acquire() async throws {
        guard capacity != nil else { return }
        try Task.checkCancellation()
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                // Decided under the lock that the cancellation handler takes too: either this
                // sees the task cancelled, or the handler finds the waiter in line.
                let outcome = state.withLock { state -> Bool? in
                    if Task.isCancelled { return nil }
                    if state.free > 0, state.waiters.isEmpty {
                        state.free -= 1
                        return true
                    }
                    state.waiters.append(Waiter(id: id, continuation: continuation))
                    return false
                }
                switch outcome {
                case nil: continuation.resume(throwing: CancellationError())
                case true?: continuation.resume()
                case false?: break
                }
            }
        } onCancel: {
            let removed = state.withLock { state -> Waiter? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiters.remove(at: index)
            }
            removed?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Gives a slot back (to the first waiter, if any). Call once per successful ``acquire()``.
    func release() {
        guard capacity != nil else { return }
        let next = state.withLock { state -> Waiter? in
            if state.waiters.isEmpty {
                state.free += 1
                return nil
            }
            return state.waiters.removeFirst()
        }
        next?.continuation.resume()
    }

    /// Requests waiting for a slot.
    var waitingCount: Int { state.withLock { $0.waiters.count } }
    /// Slots free now.
    var freeCount: Int { state.withLock { $0.free } }
}
