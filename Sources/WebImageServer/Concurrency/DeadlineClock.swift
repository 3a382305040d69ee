import Foundation

/// The requests' processing deadlines on one shared thread (SPEC V-5), which a request wakes
/// neither when it starts nor when it ends.
///
/// A deadline is an entry in a table; ending a request before its deadline removes the entry
/// and nothing else. The thread sleeps until the earliest deadline it knows of and is signalled
/// only when an entry comes due before that (or when it had nothing to wait for), so with one
/// timeout for every request it wakes at most about once a second while requests come and go —
/// not twice per request, as a sleeping task per request does (a timer armed, then a task woken
/// to be cancelled). Actions run on the thread, outside the lock, and must be short.
final class DeadlineClock: @unchecked Sendable {  // `condition` (the lock) guards every `var`
    /// The clock of the service's requests.
    static let shared = DeadlineClock()

    private struct Entry {
        let due: ContinuousClock.Instant
        let action: @Sendable () -> Void
    }

    private let condition = NSCondition()
    private var entries: [UInt64: Entry] = [:]
    private var lastID: UInt64 = 0
    /// When the thread wakes next on its own; `nil` while it waits for a signal (or before it started).
    private var wakeAt: ContinuousClock.Instant?
    private var started = false
    /// The longest the thread sleeps at once, so that a wall-clock jump (the timed wait's
    /// clock) cannot hold a deadline back for long.
    private static let longestSleep: Duration = .seconds(1)

    /// Runs `action` at `due` unless ``cancel(_:)`` comes first; returns the entry's token.
    func schedule(at due: ContinuousClock.Instant, _ action: @escaping @Sendable () -> Void) -> UInt64 {
        condition.lock()
        defer { condition.unlock() }
        lastID &+= 1
        entries[lastID] = Entry(due: due, action: action)
        if !started {
            started = true
            let thread = Thread { [self] in run() }
            thread.name = "webimage.deadlines"
            thread.start()
        } else if wakeAt.map({ due < $0 }) ?? true {
            condition.signal()
        }
        return lastID
    }

    /// Forgets the entry `token` names; its action will not run (unless it is running already).
    func cancel(_ token: UInt64) {
        condition.lock()
        entries[token] = nil
        condition.unlock()
    }

    private func run() {
        condition.lock()
        while true {
            let now = ContinuousClock.now
            var dueActions: [@Sendable () -> Void] = []
            var earliest: ContinuousClock.Instant?
            for (token, entry) in entries {
                if entry.due <= now {
                    dueActions.append(entry.action)
                    entries[token] = nil
                } else if earliest.map({ entry.due < $0 }) ?? true {
                    earliest = entry.due
                }
            }
            if !dueActions.isEmpty {
                condition.unlock()
                for action in dueActions { action() }
                condition.lock()
                continue
            }
            if let earliest {
                let sleep = min(earliest - now, Self.longestSleep)
                wakeAt = now + sleep
                let seconds = Double(sleep.components.seconds) + Double(sleep.components.attoseconds) * 1e-18
                _ = condition.wait(until: Date(timeIntervalSinceNow: seconds))
            } else {
                wakeAt = nil
                condition.wait()
            }
        }
    }
}
