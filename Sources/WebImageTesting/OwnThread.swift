import Foundation

/// Runs `work`, which blocks — waiting for a child process, a blocking read, a blocking socket
/// exchange — on a thread of its own, and returns its result.
///
/// The concurrency pool has one thread per core (two on a small machine). A pool thread that
/// blocks while waiting runs nothing else meanwhile; two such waits at once stop every other task
/// of the process, so tests that wait for the network or for timers fail though nothing is wrong
/// with them. A thread of its own only sleeps.
public func onOwnThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try work() }) }.start()
    }
}
