import Foundation
import Synchronization
import Testing
@testable import WebImageServer

/// The shared clock of the processing deadlines (SPEC V-5): an action runs once at its
/// deadline, a cancelled one never, and an earlier deadline scheduled after a later one is not
/// held back by it. Deadlines are short and the waits generous: nothing depends on speed.
@Suite(.timeLimit(.minutes(2))) struct ServiceDeadlineClockTests {
    /// What the actions did, in order, and when.
    final class Record: Sendable {
        private let events = Mutex<[(String, ContinuousClock.Instant)]>([])
        func note(_ name: String) { events.withLock { $0.append((name, .now)) } }
        var names: [String] { events.withLock { $0.map(\.0) } }
        func time(of name: String) -> ContinuousClock.Instant? { events.withLock { $0.first { $0.0 == name }?.1 } }
    }

    /// Waits (bounded by a generous hang guard) until `condition` holds; `false` on timeout.
    static func eventually(_ condition: () -> Bool) async -> Bool {
        let limit = ContinuousClock.now + .seconds(60)
        while !condition() {
            if ContinuousClock.now > limit { return false }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return true
    }

    @Test func anActionRunsOnceAtItsDeadlineNotBefore() async throws {
        let clock = DeadlineClock(), record = Record()
        let due = ContinuousClock.now + .milliseconds(50)
        _ = clock.schedule(at: due) { record.note("due") }
        #expect(await Self.eventually { record.names == ["due"] })
        let ranAt = try #require(record.time(of: "due"))
        #expect(ranAt >= due)
        try await Task.sleep(for: .milliseconds(100))
        #expect(record.names == ["due"], "once")
    }

    @Test func aCancelledActionNeverRuns() async {
        let clock = DeadlineClock(), record = Record()
        let token = clock.schedule(at: .now + .milliseconds(20)) { record.note("cancelled") }
        clock.cancel(token)
        // A later deadline's action running means the clock has passed the cancelled one.
        _ = clock.schedule(at: .now + .milliseconds(60)) { record.note("later") }
        #expect(await Self.eventually { record.names.contains("later") })
        #expect(record.names == ["later"])
    }

    @Test func anEarlierDeadlineScheduledAfterALaterOneRunsFirst() async {
        let clock = DeadlineClock(), record = Record()
        // The thread goes to sleep towards the far deadline...
        let far = clock.schedule(at: .now + .seconds(3600)) { record.note("far") }
        defer { clock.cancel(far) }
        try? await Task.sleep(for: .milliseconds(20))
        // ...and a near one, scheduled later, comes first.
        _ = clock.schedule(at: .now + .milliseconds(10)) { record.note("near") }
        #expect(await Self.eventually { record.names == ["near"] })
    }

    @Test func theDeadlineAnswersTimedOutAndWhenStoppedRunsOnceTheWorkEnds() async throws {
        let record = Record()
        await #expect(throws: ImageServiceError.timedOut) {
            try await withProcessingDeadline(seconds: 0.05, whenStopped: { record.note("stopped") }) {
                // Work that ignores cancellation for a while, as a decode on the pool does.
                let until = ContinuousClock.now + .milliseconds(300)
                while ContinuousClock.now < until { try? await Task.sleep(for: .milliseconds(5)) }
                return 1
            }
        }
        #expect(await Self.eventually { record.names == ["stopped"] }, "the place is given back once the work stops")
        let value = try await withProcessingDeadline(seconds: 600, whenStopped: { record.note("done") }) { 7 }
        #expect(value == 7)
        #expect(record.names == ["stopped", "done"], "whenStopped ran before the result was delivered")
    }
}
