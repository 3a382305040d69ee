import NIOCore
import NIOPosix

/// The threads every loopback test server runs on: an event loop group of their own, for the
/// servers' sockets and for the Swift tasks that script their responses.
///
/// A server that answered on the shared concurrency pool, or on the event loops its client
/// uses, would answer late whenever other tests keep that pool busy (CPU-bound work, a thread
/// blocked waiting for a child process) — on a loaded 2-core machine for longer than any
/// client timeout. On threads of its own it answers as soon as the operating system runs it.
enum LoopbackThreads {
    /// Two event loops, separate from `MultiThreadedEventLoopGroup.singleton` (which the HTTP
    /// clients under test use) and from the concurrency pool. Lives for the whole process.
    static let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)

    /// Runs the servers' tasks (and their child tasks, which inherit the preference) on
    /// ``group``.
    static let executor = EventLoopTaskExecutor(group: group)
}

/// A task executor that runs each job on the next event loop of a group.
final class EventLoopTaskExecutor: TaskExecutor {
    private let group: MultiThreadedEventLoopGroup

    init(group: MultiThreadedEventLoopGroup) {
        self.group = group
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        group.next().execute {
            job.runSynchronously(on: self.asUnownedTaskExecutor())
        }
    }
}
