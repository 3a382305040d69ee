import Foundation

/// A fixed number of dedicated threads for CPU-heavy or blocking work: decoding, transforming,
/// encoding and disk I/O (SPEC C-7).
///
/// Work never runs on the caller's thread, on the Swift cooperative pool or on network event
/// loops, and at most ``width`` jobs run at once, so N parallel downloads cannot start N
/// parallel 48 MB decodes. Jobs start in submission order.
public final class ProcessingPool: Sendable {
    /// The pool the pipeline uses by default: as many threads as cores, at least 2, at most 8.
    public static let shared = ProcessingPool(
        name: "webimage.processing", width: min(8, max(2, ProcessInfo.processInfo.activeProcessorCount)))

    /// Maximum number of jobs running at once.
    public let width: Int
    private let state: PoolState

    /// Creates a pool of `width` threads named `name`. Threads start on first use and stop
    /// when the pool is released.
    public init(name: String, width: Int) {
        self.width = max(1, width)
        self.state = PoolState(name: name, width: max(1, width))
    }

    deinit {
        state.shutdown()
    }

    /// Jobs waiting for a thread.
    public var queuedCount: Int { state.counts().queued }
    /// Jobs running now.
    public var runningCount: Int { state.counts().running }

    /// Runs `work` on a pool thread and returns its result.
    ///
    /// If the calling task is cancelled before the job starts, the job is dropped and
    /// ``WebImageError/cancelled`` is thrown: cancelled work never runs. A job that has started
    /// sees its ``WorkCancellation/current`` flag set, which the library's long loops read to
    /// stop early; the caller still waits until `work` returns, so the thread is free when
    /// `run` ends.
    public func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        let job = PoolJob()
        let cancellation = WorkCancellation()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                let armed = job.arm(
                    body: {
                        do { continuation.resume(returning: try cancellation.installed(work)) } catch { continuation.resume(throwing: error) }
                    },
                    onCancel: { continuation.resume(throwing: WebImageError.cancelled) })
                if armed {
                    state.enqueue(job)
                } else {
                    continuation.resume(throwing: WebImageError.cancelled)
                }
            }
        } onCancel: {
            cancellation.cancel()
            job.cancel()
        }
    }

    /// Runs `work` on a pool thread without waiting for it.
    public func submit(_ work: @escaping @Sendable () -> Void) {
        let job = PoolJob()
        _ = job.arm(body: work)
        state.enqueue(job)
    }
}

/// One submitted job. The race between running it and cancelling it is decided under `lock`:
/// idle → armed → claimed (runs) or idle/armed → cancelled (`onCancel` runs once if armed).
/// `@unchecked Sendable`: all mutable fields are read and written only while holding `lock`.
final class PoolJob: @unchecked Sendable {
    private enum State { case idle, armed, claimed, cancelled }
    private let lock = NSLock()
    private var state = State.idle
    private var body: (@Sendable () -> Void)?
    private var onCancel: (@Sendable () -> Void)?

    /// Installs the work and the cancellation handler; `false` when the job was already
    /// cancelled (the caller then reports cancellation itself and does not enqueue).
    func arm(body: @escaping @Sendable () -> Void, onCancel: (@Sendable () -> Void)? = nil) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard state == .idle else { return false }
        self.body = body
        self.onCancel = onCancel
        state = .armed
        return true
    }

    /// Claims the job for running and returns its body; `nil` when it was cancelled first.
    func claim() -> (@Sendable () -> Void)? {
        lock.lock()
        defer { lock.unlock() }
        guard state == .armed else { return nil }
        state = .claimed
        let work = body
        body = nil
        onCancel = nil
        return work
    }

    /// Cancels the job unless it has started; runs `onCancel` exactly once if it was armed.
    func cancel() {
        lock.lock()
        let handler: (@Sendable () -> Void)?
        switch state {
        case .idle:
            state = .cancelled
            handler = nil
        case .armed:
            state = .cancelled
            handler = onCancel
            body = nil
            onCancel = nil
        case .claimed, .cancelled:
            handler = nil
        }
        lock.unlock()
        handler?()
    }
}

/// The queue and worker threads of a ``ProcessingPool``.
/// `@unchecked Sendable`: `queue`, `running`, `threads` and `stopped` are only touched while
/// holding `condition` (an `NSCondition`, which is also the lock).
final class PoolState: @unchecked Sendable {
    private let condition = NSCondition()
    private var queue: [PoolJob] = []
    private var head = 0
    private var running = 0
    private var threads = 0
    private var stopped = false
    private let name: String
    private let width: Int

    init(name: String, width: Int) {
        self.name = name
        self.width = width
    }

    func counts() -> (queued: Int, running: Int) {
        condition.lock()
        defer { condition.unlock() }
        return (queue.count - head, running)
    }

    func enqueue(_ job: PoolJob) {
        condition.lock()
        queue.append(job)
        let idle = threads - running
        let pending = queue.count - head
        if threads < width && pending > idle {
            threads += 1
            let thread = Thread { [self] in workerLoop() }
            thread.name = "\(name).\(threads)"
            thread.start()
        }
        condition.signal()
        condition.unlock()
    }

    func shutdown() {
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
    }

    private func workerLoop() {
        while true {
            condition.lock()
            while head == queue.count && !stopped { condition.wait() }
            if head == queue.count && stopped {
                threads -= 1
                condition.unlock()
                return
            }
            let job = queue[head]
            head += 1
            if head > 64 && head * 2 > queue.count {
                queue.removeFirst(head)
                head = 0
            }
            running += 1
            condition.unlock()
            job.claim()?()
            condition.lock()
            running -= 1
            condition.unlock()
        }
    }
}
