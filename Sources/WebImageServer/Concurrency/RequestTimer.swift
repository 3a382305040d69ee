import NIOCore

/// A one-shot timer of the request line (a deadline, a wait limit): on the connection's event
/// loop a scheduled task of the loop, which wakes no other thread to be set or cancelled;
/// elsewhere (no ``EventLoopTaskExecutor/current``) a task that sleeps.
struct RequestTimer: Sendable {
    private let stop: @Sendable () -> Void

    /// Runs `action` once `delay` has passed, unless cancelled first.
    static func after(_ delay: Duration, _ action: @escaping @Sendable () -> Void) -> RequestTimer {
        if let loop = EventLoopTaskExecutor.current?.loop {
            let scheduled = loop.scheduleTask(in: .nanoseconds(nanoseconds(delay))) { action() }
            return RequestTimer { scheduled.cancel() }
        }
        let task = Task {
            try await Task.sleep(for: delay)
            action()
        }
        return RequestTimer { task.cancel() }
    }

    /// Stops the timer; `action` does not run unless it already has.
    func cancel() { stop() }

    /// `delay` in nanoseconds, from 0 up to `Int64.max` (about 292 years).
    static func nanoseconds(_ delay: Duration) -> Int64 {
        let (seconds, attoseconds) = delay.components
        guard seconds >= 0, attoseconds >= 0 else { return 0 }
        guard seconds < Int64.max / 1_000_000_000 - 1 else { return .max }
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
