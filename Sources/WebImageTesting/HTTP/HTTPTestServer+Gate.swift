import Foundation
import NIOCore
import Synchronization

extension HTTPTestServer {
    /// Holds responses back until the test opens it, so a test can line up callers while a
    /// download is provably still in progress (no sleeps): before the head (``Response/gate``)
    /// or part-way through the body (``Response/bodyPause``).
    ///
    /// A held response ends when the gate opens, when its connection (or HTTP/2 stream) closes
    /// — the client gave up: the response counts as abandoned — or when the server shuts down.
    /// So that a forgotten gate cannot hang a test, it also proceeds on its own after
    /// ``maximumWait``, which is longer than any hang guard of the tests.
    public final class Gate: Sendable {
        /// The longest a response waits for the gate.
        public static let maximumWait: Duration = .seconds(600)

        /// One held response.
        private enum Waiter {
            /// Registered, not suspended yet.
            case registered
            /// Suspended, waiting to be resumed.
            case suspended(CheckedContinuation<Void, any Error>)
            /// Its outcome is decided (resumed now, or as soon as it suspends).
            case ended(Result<Void, any Error>)
        }

        private struct State {
            var isOpen = false
            var waiters: [Int: Waiter] = [:]
            var nextID = 0
        }

        private let state = Mutex(State())

        public init() {}

        /// Lets every held and future response through.
        public func open() {
            let held = state.withLock { state in
                state.isOpen = true
                return Array(state.waiters.keys)
            }
            for id in held { end(id, .success(())) }
        }

        /// Responses currently held.
        public var waitingCount: Int { state.withLock { $0.waiters.count } }

        /// The connection closed while its response was held.
        struct ConnectionClosed: Error {}

        /// Waits until the gate is open (or ``maximumWait`` passed). Throws when `closed`
        /// completes first (the connection ended) or the task is cancelled.
        func wait(unlessClosed closed: EventLoopFuture<Void>? = nil) async throws {
            let registered = state.withLock { state -> Int? in
                guard !state.isOpen else { return nil }
                let id = state.nextID
                state.nextID += 1
                state.waiters[id] = .registered
                return id
            }
            guard let id = registered else { return }
            let timer = Task {
                guard (try? await Task.sleep(for: Self.maximumWait)) != nil else { return }
                self.end(id, .success(()))
            }
            defer {
                timer.cancel()
                state.withLock { _ = $0.waiters.removeValue(forKey: id) }
            }
            closed?.whenComplete { _ in self.end(id, .failure(ConnectionClosed())) }
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                    let decided = state.withLock { state -> Result<Void, any Error>? in
                        if case .ended(let result) = state.waiters[id] { return result }
                        state.waiters[id] = .suspended(continuation)
                        return nil
                    }
                    if let decided { continuation.resume(with: decided) }
                }
            } onCancel: {
                self.end(id, .failure(CancellationError()))
            }
        }

        /// Decides the outcome of waiter `id` once; resumes it if it is suspended.
        private func end(_ id: Int, _ result: Result<Void, any Error>) {
            let continuation = state.withLock { state -> CheckedContinuation<Void, any Error>? in
                switch state.waiters[id] {
                case .registered:
                    state.waiters[id] = .ended(result)
                    return nil
                case .suspended(let continuation):
                    state.waiters[id] = .ended(result)
                    return continuation
                case .ended, nil:
                    return nil
                }
            }
            continuation?.resume(with: result)
        }
    }
}
