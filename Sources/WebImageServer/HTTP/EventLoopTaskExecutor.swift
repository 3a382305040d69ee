import NIOCore

/// A `TaskExecutor` that runs jobs on one NIO event loop: a connection's request line runs its
/// async steps on the loop that reads and writes the connection (SPEC V-8), so at concurrency 1
/// a request wakes no thread but the processing pool's (SPEC C-7: decode, transforms and encode
/// still go there, through ``/WebImageCore/ProcessingPool``) and the loop again for its answer.
///
/// Only code that does not block may run here: what blocks (source-cache reads, local files,
/// hashing a source) leaves the loop with ``offLoop(_:)``.
final class EventLoopTaskExecutor: TaskExecutor {
    /// The loop the jobs run on.
    let loop: any EventLoop

    init(_ loop: any EventLoop) {
        self.loop = loop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }

    /// The executor the current request's tasks prefer, or `nil` outside a connection's
    /// request line (a test calling the service directly, an embedder's own server): set by
    /// ``LoopBoundChannel`` for each connection and read where the request line starts
    /// unstructured tasks (``requestTask(_:)``), which do not inherit a preference.
    @TaskLocal static var current: EventLoopTaskExecutor?
}

/// A task for the request line: on the current connection's event loop when there is one
/// (``EventLoopTaskExecutor/current``), else where `Task {}` runs.
@discardableResult
func requestTask<Value: Sendable>(
    _ operation: sending @escaping @isolated(any) () async throws -> Value
) -> Task<Value, any Error> {
    Task(executorPreference: EventLoopTaskExecutor.current, operation: operation)
}

/// A non-throwing task for the request line (see ``requestTask(_:)``).
@discardableResult
func requestTask(_ operation: sending @escaping @isolated(any) () async -> Void) -> Task<Void, Never> {
    Task(executorPreference: EventLoopTaskExecutor.current, operation: operation)
}

/// Runs `work` off the connection's event loop, on Swift's global concurrent executor (where
/// the request line ran before it moved to the loop): for steps that block the thread, such
/// as file reads or hashing a whole source. Outside a connection (no
/// ``EventLoopTaskExecutor/current``) it runs `work` where it is.
func offLoop<Value, Failure: Error>(
    isolation: isolated (any Actor)? = #isolation, _ work: () async throws(Failure) -> Value
) async throws(Failure) -> Value {
    guard EventLoopTaskExecutor.current != nil else { return try await work() }
    return try await withTaskExecutorPreference(globalConcurrentExecutor, isolation: isolation, operation: work)
}
