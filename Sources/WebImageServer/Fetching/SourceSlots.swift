import Synchronization

/// Bounds the requests that hold a fetched source, and the bytes those sources take (SPEC V-8).
/// A request takes a place before it fetches its source and gives it back once its answer is
/// encoded:
///
/// - **Count** (`fetch-ahead`): at most `workers + fetchAhead` requests hold a source —
///   `workers` rendering and `fetchAhead` fetched ahead of a free worker (the service passes
///   ``ImageServiceConfiguration/resolvedFetchAhead``, the worker count unless set; `nil` here
///   leaves the count unbounded).
/// - **Bytes** (`max-source-memory`): a place reserves bytes before the fetch — the most a
///   source may be, `max-src-bytes`, since its size is not known yet — and, once the source is
///   here, keeps only its size (``settle(reserved:actual:)``). So the bytes of sources held and
///   downloads in flight never pass ``byteBudget``.
///
/// Waiters are served in arrival order. A waiter whose task is cancelled (its processing
/// deadline, its client gone) leaves the line without taking a place, and so does one still
/// waiting at its own limit (``WaitExpired``: the caller answers 503 before fetching).
final class SourceSlots: Sendable {
    /// A wait for a place that ended at its limit.
    struct WaitExpired: Error {}

    private struct Waiter {
        var id: UInt64
        var bytes: Int
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        /// Free places; `nil` when the count is unbounded.
        var free: Int?
        /// Free bytes; `nil` when the bytes are unbounded.
        var freeBytes: Int?
        var waiters: [Waiter] = []
        var nextID: UInt64 = 0

        func fits(_ bytes: Int) -> Bool { (free ?? 1) > 0 && (freeBytes ?? .max) >= bytes }

        mutating func take(_ bytes: Int) {
            if let free { self.free = free - 1 }
            if let freeBytes { self.freeBytes = freeBytes - bytes }
        }

        mutating func give(places: Int, bytes: Int) {
            if let free { self.free = free + places }
            if let freeBytes { self.freeBytes = freeBytes + bytes }
        }

        /// Takes places for the waiters at the head of the line that now fit.
        mutating func admitHead() -> [Waiter] {
            var admitted: [Waiter] = []
            while let first = waiters.first, fits(first.bytes) {
                take(first.bytes)
                admitted.append(waiters.removeFirst())
            }
            return admitted
        }
    }

    private let state: Mutex<State>
    /// Places in all; nil when the count is unbounded.
    let capacity: Int?
    /// Bytes the places may reserve in all; `Int.max` when unbounded.
    let byteBudget: Int

    /// Places for `workers` rendering requests and `fetchAhead` more (unbounded for nil), holding
    /// at most `byteBudget` bytes (unbounded for nil).
    init(workers: Int, fetchAhead: Int?, byteBudget: Int? = nil) {
        capacity = fetchAhead.map { max(1, workers) + max(0, $0) }
        self.byteBudget = byteBudget.map { max(0, $0) } ?? .max
        state = Mutex(State(free: capacity, freeBytes: byteBudget == nil ? nil : self.byteBudget))
    }

    /// Takes a place reserving `bytes`, waiting in line while none fits, until `limit` at most.
    /// - Throws: `CancellationError` when the task is cancelled first, ``WaitExpired`` when
    ///   `limit` comes first; in both cases nothing is taken.
    func acquire(bytes: Int = 0, until limit: ContinuousClock.Instant? = nil) async throws {
        let bytes = min(max(0, bytes), byteBudget)
        try Task.checkCancellation()
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        let timer = limit.map { limit in
            RequestTimer.after(ContinuousClock.now.duration(to: limit)) { [self] in leaveLine(id, throwing: WaitExpired()) }
        }
        defer { timer?.cancel() }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                // Decided under the lock that the cancellation handler takes too: either this
                // sees the task cancelled, or the handler finds the waiter in line.
                // The limit likewise: either this sees it passed, or the timer finds the waiter.
                let outcome = state.withLock { state -> Result<Bool, any Error> in
                    if Task.isCancelled { return .failure(CancellationError()) }
                    if state.waiters.isEmpty, state.fits(bytes) {
                        state.take(bytes)
                        return .success(true)
                    }
                    if let limit, ContinuousClock.now >= limit { return .failure(WaitExpired()) }
                    state.waiters.append(Waiter(id: id, bytes: bytes, continuation: continuation))
                    return .success(false)
                }
                switch outcome {
                case .failure(let error): continuation.resume(throwing: error)
                case .success(true): continuation.resume()
                case .success(false): break
                }
            }
        } onCancel: {
            leaveLine(id, throwing: CancellationError())
        }
    }

    /// Takes waiter `id` out of the line, if it is still there, resuming it with `error`; the
    /// waiters behind it may fit now.
    private func leaveLine(_ id: UInt64, throwing error: any Error) {
        let (removed, admitted) = state.withLock { state -> (Waiter?, [Waiter]) in
            guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return (nil, []) }
            let removed = state.waiters.remove(at: index)
            return (removed, state.admitHead())
        }
        removed?.continuation.resume(throwing: error)
        for waiter in admitted { waiter.continuation.resume() }
    }

    /// The source is here: of the `reserved` bytes the place keeps `actual` (at most
    /// `reserved`) and gives the rest back.
    func settle(reserved: Int, actual: Int) {
        let reserved = min(max(0, reserved), byteBudget)
        let kept = min(max(0, actual), reserved)
        give(places: 0, bytes: reserved - kept)
    }

    /// Gives a place back with the `bytes` it still holds. Call once per successful
    /// ``acquire(bytes:until:)``.
    func release(bytes: Int = 0) {
        give(places: 1, bytes: min(max(0, bytes), byteBudget))
    }

    private func give(places: Int, bytes: Int) {
        guard places > 0 || bytes > 0 else { return }
        let admitted = state.withLock { state -> [Waiter] in
            state.give(places: places, bytes: bytes)
            return state.admitHead()
        }
        for waiter in admitted { waiter.continuation.resume() }
    }

    /// Requests waiting for a place.
    var waitingCount: Int { state.withLock { $0.waiters.count } }
    /// Places free now (`Int.max` when the count is unbounded).
    var freeCount: Int { state.withLock { $0.free ?? .max } }
    /// Bytes reserved or held by places now (0 when the bytes are unbounded).
    var heldBytes: Int { state.withLock { $0.freeBytes.map { byteBudget - $0 } ?? 0 } }
}
