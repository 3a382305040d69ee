import Foundation
import Testing

@testable import WebImage

@Suite("Download queue order (D-4)")
struct LoadingQueueTests {
    @Test("Given LIFO with one slot, when 1…7 are enqueued and 8…14 when 7 starts, then the start order is 1, 7, 14…8, 6…2")
    func lifoAcceptanceOrder() {
        var queue = DownloadQueue<Int>(maxConcurrent: 1, order: .lifo)
        var started: [Int] = []
        for id in 1...7 { started += queue.enqueue(id, priority: .normal) }
        var running = started
        var guardCount = 0
        while let current = running.first, guardCount < 100 {
            guardCount += 1
            running.removeFirst()
            if current == 7 {
                for id in 8...14 { running += queue.enqueue(id, priority: .normal) }
            }
            let next = queue.finish(current)
            started += next
            running += next
        }
        #expect(started == [1, 7, 14, 13, 12, 11, 10, 9, 8, 6, 5, 4, 3, 2])
    }

    @Test("Given FIFO with one slot, when 1…5 are enqueued, then they start in order")
    func fifoOrder() {
        var queue = DownloadQueue<Int>(maxConcurrent: 1, order: .fifo)
        var started: [Int] = []
        for id in 1...5 { started += queue.enqueue(id, priority: .normal) }
        for id in 1...5 { started += queue.finish(id) }
        #expect(started == [1, 2, 3, 4, 5])
    }

    @Test("Given queued low, normal and high downloads, when slots free, then high starts first and low last")
    func priorities() {
        var queue = DownloadQueue<String>(maxConcurrent: 1, order: .fifo)
        var started = queue.enqueue("busy", priority: .normal)
        started += queue.enqueue("low", priority: .low)
        started += queue.enqueue("normal", priority: .normal)
        started += queue.enqueue("high", priority: .high)
        for id in ["busy", "high", "normal", "low"] { started += queue.finish(id) }
        #expect(started == ["busy", "high", "normal", "low"])
    }

    @Test("Given queued downloads, when one is raised to high and another lowered, then they start in the new order")
    func changedPriority() {
        var queue = DownloadQueue<String>(maxConcurrent: 1, order: .fifo)
        var started = queue.enqueue("busy", priority: .normal)
        started += queue.enqueue("normal", priority: .normal)
        started += queue.enqueue("low", priority: .low)
        started += queue.enqueue("other", priority: .normal)
        let raised = queue.setPriority("low", to: .high)
        let lowered = queue.setPriority("normal", to: .low)  // lowering is live too
        let running = queue.setPriority("busy", to: .high)
        #expect(raised && lowered)
        #expect(!running, "a running download is not queued")
        for id in ["busy", "low", "other", "normal"] { started += queue.finish(id) }
        #expect(started == ["busy", "low", "other", "normal"])
    }

    @Test("Given a limit of 3 and a pseudo-random stream of events, then never more than 3 run")
    func limitHolds() {
        var queue = DownloadQueue<Int>(maxConcurrent: 3, order: .lifo)
        var running: [Int] = []
        var seed: UInt64 = 42
        var next = 0
        for _ in 0..<2_000 {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            if seed >> 62 == 0, let first = running.first {
                running.removeFirst()
                running += queue.finish(first)
            } else {
                running += queue.enqueue(next, priority: DownloadPriority(rawValue: Int(seed >> 40) % 3) ?? .normal)
                next += 1
            }
            #expect(running.count <= 3)
            #expect(queue.running.count == running.count)
        }
    }
}

@Suite("Download coalescing state machine (D-3)")
struct LoadingCoalescingTests {
    typealias Machine = DownloaderStateMachine<String>
    let a = DownloadKey(url: URL(string: "http://x/a")!)
    let b = DownloadKey(url: URL(string: "http://x/b")!)

    @Test("Given two requests for one URL, then they share one download and only the first starts it")
    func sharesDownload() {
        var machine = Machine(maxConcurrentDownloads: 6, order: .fifo)
        let first = machine.request(key: a, priority: .normal, caller: "one")
        let second = machine.request(key: a, priority: .normal, caller: "two")
        #expect(first.downloadID == second.downloadID)
        #expect(!first.coalesced && second.coalesced)
        #expect(first.start.map(\.id) == [first.downloadID])
        #expect(second.start.isEmpty)
        #expect(machine.downloadCount == 1)
    }

    @Test("Given two callers, when one cancels, then only it leaves and the other completes")
    func cancelOne() {
        var machine = Machine(maxConcurrentDownloads: 6, order: .fifo)
        let first = machine.request(key: a, priority: .normal, caller: "one")
        _ = machine.request(key: a, priority: .normal, caller: "two")
        guard case .removed(let caller) = machine.cancel(first.callerID) else {
            Issue.record("expected .removed")
            return
        }
        #expect(caller == "one")
        let done = machine.complete(first.downloadID)
        #expect(done.callers.map(\.caller) == ["two"])
    }

    @Test("Given a running download, when its last caller cancels, then the download is cancelled and its slot held until it ends")
    func cancelLastRunning() {
        var machine = Machine(maxConcurrentDownloads: 1, order: .fifo)
        let first = machine.request(key: a, priority: .normal, caller: "one")
        let queued = machine.request(key: b, priority: .normal, caller: "b")
        #expect(queued.start.isEmpty)
        guard case .removedAndCancelDownload(_, let id) = machine.cancel(first.callerID) else {
            Issue.record("expected .removedAndCancelDownload")
            return
        }
        #expect(id == first.downloadID)
        #expect(machine.runningCount == 1)
        // A new request for the URL starts a new download (queued behind the slot).
        let again = machine.request(key: a, priority: .normal, caller: "again")
        #expect(again.downloadID != first.downloadID)
        #expect(!again.coalesced)
        let done = machine.complete(first.downloadID)
        #expect(done.callers.isEmpty)
        #expect(done.start.map(\.id) == [queued.downloadID])
    }

    @Test("Given a queued download, when its last caller cancels, then it is dropped without starting")
    func cancelLastQueued() {
        var machine = Machine(maxConcurrentDownloads: 1, order: .fifo)
        let busy = machine.request(key: a, priority: .normal, caller: "a")
        let queued = machine.request(key: b, priority: .normal, caller: "b")
        guard case .removedAndDropQueued(_, let id) = machine.cancel(queued.callerID) else {
            Issue.record("expected .removedAndDropQueued")
            return
        }
        #expect(id == queued.downloadID)
        let done = machine.complete(busy.downloadID)
        #expect(done.start.isEmpty)
        #expect(machine.downloadCount == 0)
    }

    @Test("Given a completed download, when the URL is requested again, then a new download starts; a stale cancel does nothing")
    func afterCompletion() {
        var machine = Machine(maxConcurrentDownloads: 6, order: .fifo)
        let first = machine.request(key: a, priority: .normal, caller: "one")
        let done = machine.complete(first.downloadID)
        #expect(done.callers.count == 1)
        guard case .none = machine.cancel(first.callerID) else {
            Issue.record("expected .none")
            return
        }
        let second = machine.request(key: a, priority: .normal, caller: "two")
        #expect(second.downloadID != first.downloadID)
        #expect(second.start.count == 1)
    }

    @Test("Given a queued download, when a high-priority caller joins, then it starts before other queued downloads")
    func joinRaisesPriority() {
        var machine = Machine(maxConcurrentDownloads: 1, order: .fifo)
        let busy = machine.request(key: DownloadKey(url: URL(string: "http://x/busy")!), priority: .normal, caller: "busy")
        _ = machine.request(key: b, priority: .normal, caller: "b")
        let low = machine.request(key: a, priority: .low, caller: "a-low")
        _ = machine.request(key: a, priority: .high, caller: "a-high")
        let next = machine.complete(busy.downloadID).start
        #expect(next.map(\.id) == [low.downloadID])
        #expect(machine.callers(of: low.downloadID) == ["a-low", "a-high"])
    }

    @Test("Given a body being delivered, then its slot is free, callers joining get it, a cancelled joiner leaves, and after the delivery a request starts a new download")
    func deliveringPhase() {
        var machine = Machine(maxConcurrentDownloads: 1, order: .fifo)
        let first = machine.request(key: a, priority: .normal, caller: "one")
        let queued = machine.request(key: b, priority: .normal, caller: "b")
        let delivering = machine.completeForDelivery(first.downloadID)
        #expect(delivering.callers.map(\.caller) == ["one"])
        #expect(delivering.start.map(\.id) == [queued.downloadID], "the slot is free while the body is delivered")
        let late = machine.request(key: a, priority: .normal, caller: "late")
        let leaving = machine.request(key: a, priority: .normal, caller: "leaving")
        #expect(late.coalesced && late.downloadID == first.downloadID && late.start.isEmpty)
        guard case .removed("leaving") = machine.cancel(leaving.callerID) else {
            Issue.record("expected .removed(leaving)")
            return
        }
        #expect(machine.endDelivery(first.downloadID).map(\.caller) == ["late"])
        #expect(machine.endDelivery(first.downloadID).isEmpty, "each caller is handed over once")
        let again = machine.request(key: a, priority: .normal, caller: "again")
        #expect(!again.coalesced && again.downloadID != first.downloadID)
    }

    @Test("Given different validators for one URL, then the downloads are not coalesced")
    func validatorsSeparate() {
        var machine = Machine(maxConcurrentDownloads: 6, order: .fifo)
        let plain = machine.request(key: a, priority: .normal, caller: "plain")
        var conditional = a
        conditional.validators = HTTPCacheValidators(entityTag: "\"v1\"")
        let revalidate = machine.request(key: conditional, priority: .normal, caller: "revalidate")
        #expect(plain.downloadID != revalidate.downloadID)
    }
}

@Suite("Progress throttle (D-7)")
struct LoadingProgressThrottleTests {
    @Test("Given a 10% interval over 1,000 bytes in 1-byte steps, then about 10 reports fire, increasing, ending at 1,000")
    func throttles() {
        var throttle = ProgressThrottle(minimumInterval: 0.1, expected: 1_000)
        var reported: [Int64] = []
        for received in Int64(1)...1_000 where throttle.shouldReport(received) { reported.append(received) }
        if throttle.shouldReportCompletion(1_000) { reported.append(1_000) }
        #expect(reported.count <= 11)
        #expect(reported.count >= 9)
        #expect(reported == reported.sorted())
        #expect(reported.last == 1_000)
        #expect(Set(reported).count == reported.count)
    }

    @Test("Given an unknown total, then every chunk is reported")
    func unknownTotal() {
        var throttle = ProgressThrottle(minimumInterval: 0.5, expected: nil)
        let first = throttle.shouldReport(10)
        let second = throttle.shouldReport(20)
        let completion = throttle.shouldReportCompletion(20)
        #expect(first && second && !completion)
    }
}
