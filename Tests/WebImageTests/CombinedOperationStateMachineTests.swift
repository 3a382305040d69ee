import Testing

@testable import WebImage

/// The coordination of one load (``CombinedOperationStateMachine``), with plain values for the
/// tokens and the waiter: every event and the action it returns.
@Suite("Load coordination state machine")
struct CombinedOperationStateMachineTests {
    typealias Machine = CombinedOperationStateMachine<String, String, Int>

    @Test("Given a running load with both tokens, when it is stopped, then both tokens come back and it ends once")
    func stopHandsBackTokens() {
        var machine = Machine()
        let attached = machine.attachTask("cache")
        #expect(attached)
        guard case .attached(nil) = machine.attachLoaderToken("loader") else {
            Issue.record("the loader token is attached without a priority")
            return
        }
        guard case .stop(let cache, let loader, let end) = machine.stop() else {
            Issue.record("a running load stops")
            return
        }
        #expect(cache == "cache" && loader == "loader" && end)
        #expect(machine.isCancelled && machine.hasEnded)
        guard case .none = machine.stop() else {
            Issue.record("a second stop does nothing")
            return
        }
        let endedAgain = machine.end()
        #expect(!endedAgain, "a stopped load does not end again")
    }

    @Test("Given a cancelled load, when tokens arrive, then they are rejected")
    func tokensAfterCancelAreRejected() {
        var machine = Machine()
        _ = machine.stop()
        let attached = machine.attachTask("cache")
        #expect(!attached)
        guard case .rejected = machine.attachLoaderToken("loader") else {
            Issue.record("the owner must cancel the token")
            return
        }
    }

    @Test("Given a load that ended, when it is stopped, then it is marked cancelled with nothing to cancel or deliver")
    func stopAfterEnd() {
        var machine = Machine()
        _ = machine.attachTask("cache")
        let first = machine.end()
        let second = machine.end()
        #expect(first && !second, "the load ends exactly once")
        guard case .stop(nil, nil, false) = machine.stop() else {
            Issue.record("the end dropped the tokens; no second end")
            return
        }
        #expect(machine.isCancelled)
    }

    @Test("Given a priority set before the loader token, when the token arrives, then the priority is applied to it")
    func priorityBeforeToken() {
        var machine = Machine()
        let early = machine.setPriority(.high)
        #expect(early == nil, "no token to forward to yet")
        guard case .attached(.some(.high)) = machine.attachLoaderToken("loader") else {
            Issue.record("the earlier priority is handed over with the token")
            return
        }
        let forwardTo = machine.setPriority(.low)
        #expect(forwardTo == "loader")
        #expect(machine.priority == .low)
    }

    @Test("Given a preview being transformed, then newer ones are dropped until it ends")
    func oneAtATime() {
        var machine = Machine()
        let first = machine.beginPreview()
        let second = machine.beginPreview()
        let waiter = machine.endPreview()
        let third = machine.beginPreview()
        #expect(first && !second, "a newer preview is dropped while one runs")
        #expect(waiter == nil)
        #expect(third, "the slot is free again")
    }

    @Test("Given a preview being transformed, when previews close, then the final path waits until it ends")
    func closeWaitsForRunningPreview() {
        var machine = Machine()
        let began = machine.beginPreview()
        let waits = machine.closePreviews(7)
        let woken = machine.endPreview()
        let beganAfterClose = machine.beginPreview()
        let waitsAgain = machine.closePreviews(8)
        let noneLeft = machine.endPreview()
        #expect(began && waits, "wait for the running preview")
        #expect(woken == 7, "its end wakes the waiter")
        #expect(!beganAfterClose, "closed for good")
        #expect(!waitsAgain && noneLeft == nil, "nothing running: go on at once")
    }
}
