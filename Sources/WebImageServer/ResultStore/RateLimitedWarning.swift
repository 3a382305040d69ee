import Logging
import Synchronization

/// Warnings logged at most once per interval; the ones held back are counted in the next.
final class RateLimitedWarning: Sendable {
    private struct State {
        var last: ContinuousClock.Instant?
        var suppressed = 0
    }
    private let state = Mutex(State())
    private let logger: Logger
    private let interval: Duration

    init(logger: Logger, interval: Duration = .seconds(10)) {
        self.logger = logger
        self.interval = interval
    }

    func warn(_ message: @autoclosure () -> String) {
        let now = ContinuousClock.now
        let suppressed = state.withLock { state -> Int? in
            if let last = state.last, now - last < interval {
                state.suppressed += 1
                return nil
            }
            state.last = now
            defer { state.suppressed = 0 }
            return state.suppressed
        }
        guard let suppressed else { return }
        let more = suppressed > 0 ? " (\(suppressed) more since the last warning)" : ""
        logger.warning("\(message())\(more)")
    }
}
