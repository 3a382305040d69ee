import Foundation
import Testing
import WebImageTesting

@testable import WebImageServer

/// `fetch-ahead` (issue #15, memory; ``SourceSlots``): how many requests may fetch, and then
/// hold, their source beyond the ones the workers render.
@Suite(.timeLimit(.minutes(2))) struct FetchAheadTests {
    /// Starts a request for `/a.png` held at the origin's gate and, once that download is under
    /// way, a request for `/b.png`; `whileHeld` runs while A's download is still held.
    static func twoSources(fetchAhead: Int?, whileHeld: (ServiceHarness) async throws -> Void) async throws {
        let harness = try await ServiceHarness.start { $0.workers = 1; $0.queue = 8; $0.fetchAhead = fetchAhead }
        defer { Task { await harness.stop() } }
        let gate = HTTPTestServer.Gate()
        harness.origin.route("/a.png", .ok(try TestImages.png(width: 40, height: 30), contentType: "image/png").with { $0.gate = gate })
        harness.origin.route("/b.png", .ok(try TestImages.png(width: 30, height: 40), contentType: "image/png"))
        let a = Task { try await harness.get(harness.plainPath("/a.png", options: "w:20", ext: "png")) }
        while gate.waitingCount == 0 { await Task.yield() }
        let b = Task { try await harness.get(harness.plainPath("/b.png", options: "w:20", ext: "png")) }
        try await whileHeld(harness)
        gate.open()
        #expect(try await a.value.status == 200)
        #expect(try await b.value.status == 200)
        #expect(harness.origin.requestCount("/b.png") == 1)
        #expect(harness.service.slots.waitingCount == 0)
    }

    @Test func zeroFetchesOnlyForAFreeWorker() async throws {
        try await Self.twoSources(fetchAhead: 0) { harness in
            // One worker, no fetch ahead: B waits for A's slot before it asks the origin.
            while harness.service.slots.waitingCount == 0, harness.origin.requestCount("/b.png") == 0 { await Task.yield() }
            #expect(harness.origin.requestCount("/b.png") == 0)
            #expect(harness.service.slots.waitingCount == 1)
        }
    }

    @Test func byDefaultEveryAdmittedRequestFetches() async throws {
        try await Self.twoSources(fetchAhead: nil) { harness in
            // B's source is fetched (and B rendered) while A's download is still held.
            while harness.origin.requestCount("/b.png") == 0, harness.service.slots.waitingCount == 0 { await Task.yield() }
            #expect(harness.origin.requestCount("/b.png") == 1)
            #expect(harness.service.slots.waitingCount == 0)
        }
    }

    @Test func aCancelledWaiterLeavesTheLineWithoutASlot() async throws {
        let slots = SourceSlots(workers: 1, fetchAhead: 0)
        #expect(slots.capacity == 1)
        try await slots.acquire()
        #expect(slots.freeCount == 0)
        let waiter = Task { try await slots.acquire() }
        while slots.waitingCount == 0 { await Task.yield() }
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        #expect(slots.waitingCount == 0)
        slots.release()
        #expect(slots.freeCount == 1, "the cancelled waiter took nothing")
    }

    @Test func aReleasedSlotGoesToTheFirstWaiter() async throws {
        let slots = SourceSlots(workers: 2, fetchAhead: 1)
        for _ in 0..<3 { try await slots.acquire() }
        let first = Task { try await slots.acquire() }
        while slots.waitingCount == 0 { await Task.yield() }
        let second = Task { try await slots.acquire() }
        while slots.waitingCount < 2 { await Task.yield() }
        slots.release()
        try await first.value
        #expect(slots.waitingCount == 1 && slots.freeCount == 0)
        slots.release()
        try await second.value
        #expect(slots.waitingCount == 0 && slots.freeCount == 0)
        let unbounded = SourceSlots(workers: 1, fetchAhead: nil)
        for _ in 0..<1000 { try await unbounded.acquire() }
        #expect(unbounded.capacity == nil && unbounded.waitingCount == 0)
    }

    @Test func theSettingParses() throws {
        #expect(try ImageServiceSettings.configuration(from: [:]).0.fetchAhead == nil)
        let environment = ImageServiceSettings.values(fromEnvironment: ["WEBIMAGE_FETCH_AHEAD": "0"])
        #expect(try ImageServiceSettings.configuration(from: environment).0.fetchAhead == 0)
        #expect(throws: ImageServiceSettings.Problem.self) { try ImageServiceSettings.configuration(from: ["fetch-ahead": ["-1"]]) }
    }
}
