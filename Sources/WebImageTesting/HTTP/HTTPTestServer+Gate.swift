import Foundation
import Synchronization

extension HTTPTestServer {
    /// Holds responses back until the test opens it, so a test can line up callers while a
    /// download is provably still in progress (no sleeps). A response waits at most
    /// ``maximumWait`` and then proceeds anyway, so a forgotten gate cannot hang a test.
    public final class Gate: Sendable {
        /// The longest a response waits for the gate.
        public static let maximumWait: Duration = .seconds(10)

        private let state = Mutex<(open: Bool, waiting: Int)>((false, 0))

        public init() {}

        /// Lets every held and future response through.
        public func open() {
            state.withLock { $0.open = true }
        }

        /// Responses currently held.
        public var waitingCount: Int { state.withLock { $0.waiting } }

        /// Waits until the gate is open (or ``maximumWait`` passed).
        func wait() async throws {
            state.withLock { $0.waiting += 1 }
            defer { state.withLock { $0.waiting -= 1 } }
            let deadline = ContinuousClock.now + Self.maximumWait
            while !state.withLock({ $0.open }), ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(5))
            }
        }
    }
}
