import Synchronization

/// The result store's write queue: renders waiting to be written, bounded by count and bytes,
/// written one at a time by a detached task that runs while the queue has work. Enqueueing
/// never waits; a render that does not fit is dropped (and counted by the caller).
final class ResultStoreWriter: Sendable {
    struct Job: Sendable {
        var key: ResultStoreKey
        var result: StoredResult
    }

    private struct State {
        var jobs: [Job] = []
        var bytes = 0
        var writing = false
        var idleWaiters: [CheckedContinuation<Void, Never>] = []
    }
    private let state = Mutex(State())
    /// Renders queued at most.
    let maxJobs: Int
    /// Bytes of queued renders at most.
    let maxBytes: Int
    private let write: @Sendable (Job) async -> Void

    /// A queue of at most `maxJobs` renders and `maxBytes` bytes, each handed to `write`.
    init(maxJobs: Int, maxBytes: Int, write: @escaping @Sendable (Job) async -> Void) {
        self.maxJobs = max(1, maxJobs)
        self.maxBytes = max(0, maxBytes)
        self.write = write
    }

    /// Queues `job`; `false` when the queue is full and it was dropped.
    func enqueue(_ job: Job) -> Bool {
        let size = job.result.body.count
        let (accepted, start) = state.withLock { state -> (Bool, Bool) in
            guard state.jobs.count < maxJobs, state.bytes + size <= maxBytes else { return (false, false) }
            state.jobs.append(job)
            state.bytes += size
            guard !state.writing else { return (true, false) }
            state.writing = true
            return (true, true)
        }
        if start { Task.detached { [self] in await drain() } }
        return accepted
    }

    /// Renders queued now.
    var pending: Int { state.withLock { $0.jobs.count } }

    /// Returns once every queued render has been written (or has failed).
    func idle() async {
        await withCheckedContinuation { continuation in
            let idle = state.withLock { state in
                guard state.writing else { return true }
                state.idleWaiters.append(continuation)
                return false
            }
            if idle { continuation.resume() }
        }
    }

    private func drain() async {
        while let job = next() { await write(job) }
    }

    private func next() -> Job? {
        let (job, waiters) = state.withLock { state -> (Job?, [CheckedContinuation<Void, Never>]) in
            guard !state.jobs.isEmpty else {
                state.writing = false
                defer { state.idleWaiters = [] }
                return (nil, state.idleWaiters)
            }
            // At most `maxJobs` queued: removing the first moves a few values.
            let job = state.jobs.removeFirst()
            state.bytes -= job.result.body.count
            return (job, [])
        }
        for waiter in waiters { waiter.resume() }
        return job
    }
}
