import Foundation
import Testing
import WebImage
import WebImageTesting

@testable import WebImageServer

/// `fetch-ahead` (memory; ``SourceSlots``): how many requests may fetch, and then hold, their
/// source beyond the ones the workers render; by default as many as the workers, so held
/// sources are bounded whatever the `queue`.
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

    @Test func byDefaultOneSourceAheadPerWorker() async throws {
        try await Self.twoSources(fetchAhead: nil) { harness in
            #expect(harness.service.slots.capacity == 2, "one worker and one source ahead of it")
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

    /// The worker is held busy by a job of the test's on the service's pool; A and B fetch their
    /// sources and wait for it, holding both places (one worker, one ahead by default). C then
    /// waits for a place unfetched until only `download-timeout` of its deadline is left.
    @Test("Given the default fetch-ahead and every place held by a request waiting for a busy worker, then a request that cannot get a place in time is 503 with Retry-After and its source is never fetched")
    func busyWorkersRefuseBeforeFetching() async throws {
        let harness = try await ServiceHarness.start {
            $0.workers = 1
            $0.queue = 8
            $0.processingTimeout = 30
            $0.downloadTimeout = 29
            $0.retryAfter = 3
        }
        defer { Task { await harness.stop() } }
        // Three different images: the same bytes would be one render that A and B share.
        for (index, name) in ["/a.png", "/b.png", "/c.png"].enumerated() {
            harness.origin.route(name, .ok(try TestImages.png(width: 40 + index, height: 30), contentType: "image/png"))
        }
        let worker = DispatchSemaphore(value: 0)
        defer { worker.signal() }
        harness.service.pool.submit { worker.wait() }
        while harness.service.pool.runningCount == 0 { try await Task.sleep(for: .milliseconds(5)) }
        let held = ["/a.png", "/b.png"].map { name in
            Task { try await harness.get(harness.plainPath(name, options: "w:20", ext: "png")) }
        }
        // Both fetched and waiting for the worker, each holding its place.
        while harness.origin.requestCount("/a.png") + harness.origin.requestCount("/b.png") < 2 || harness.service.pool.queuedCount < 2 {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(harness.service.slots.freeCount == 0)
        let late = try await harness.get(harness.plainPath("/c.png", options: "w:20", ext: "png"))
        #expect(late.status == 503, "\(late.text)")
        #expect(late.header("Retry-After") == "3")
        #expect(harness.origin.requestCount("/c.png") == 0, "refused before its source was fetched")
        worker.signal()
        for request in held { #expect(try await request.value.status == 200) }
        #expect(harness.origin.requestCount("/a.png") == 1 && harness.origin.requestCount("/b.png") == 1)
    }

    @Test func theSettingParses() throws {
        let defaults = try ImageServiceSettings.configuration(from: [:]).0
        #expect(defaults.fetchAhead == nil)
        #expect(defaults.resolvedFetchAhead == defaults.workers, "as many as the workers by default")
        var configuration = defaults
        configuration.workers = 4
        #expect(configuration.heldSourceBytesBound == 8 * 64 * 1024 * 1024, "(workers + fetch-ahead) × max-src-bytes")
        configuration.fetchAhead = 0
        #expect(configuration.resolvedFetchAhead == 0 && configuration.heldSourceBytesBound == 4 * 64 * 1024 * 1024)
        configuration.workers = 32
        configuration.fetchAhead = nil
        #expect(configuration.heldSourceBytesBound == configuration.sourceMemory, "max-source-memory when that is less")
        let environment = ImageServiceSettings.values(fromEnvironment: ["WEBIMAGE_FETCH_AHEAD": "0"])
        #expect(try ImageServiceSettings.configuration(from: environment).0.fetchAhead == 0)
        #expect(throws: ImageServiceSettings.Problem.self) { try ImageServiceSettings.configuration(from: ["fetch-ahead": ["-1"]]) }
    }
}
