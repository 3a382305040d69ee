import Foundation
import Testing
import WebImageTesting

@testable import WebImageServer

/// Held source memory (`max-source-memory`, V-8; ``SourceSlots``): a download in flight counts
/// as a whole `max-src-bytes` source and a fetched one as its size, so requests past the budget
/// wait before they fetch; one that cannot start in time gets 503 with `Retry-After`, its
/// source never asked for. Sources are held at the origin's gate; every wait is for an event.
@Suite(.timeLimit(.minutes(3))) struct ServiceSourceMemoryTests {
    /// Room for two downloads of at most 4 KiB.
    static func start(_ configure: @escaping (inout ImageServiceConfiguration) -> Void = { _ in }) async throws -> ServiceHarness {
        try await ServiceHarness.start {
            $0.workers = 1
            $0.queue = 8
            $0.limits.maxSourceBytes = 4096
            $0.maxSourceMemory = 8192
            configure(&$0)
        }
    }

    static func route(_ harness: ServiceHarness, _ names: [String], gate: HTTPTestServer.Gate) throws {
        for name in names {
            harness.origin.route(name, .ok(try TestImages.png(width: 8, height: 8), contentType: "image/png").with { $0.gate = gate })
        }
    }

    @Test("Given two downloads filling max-source-memory, then a third request waits before it fetches, and fetches once there is room")
    func waitsBeforeFetching() async throws {
        let harness = try await Self.start()
        defer { Task { await harness.stop() } }
        let gate = HTTPTestServer.Gate()
        defer { gate.open() }
        try Self.route(harness, ["/a.png", "/b.png", "/c.png"], gate: gate)
        let requests = ["/a.png", "/b.png", "/c.png"].map { name in
            Task { try await harness.get(harness.plainPath(name, options: "w:4", ext: "png")) }
        }
        // Every request is either downloading (held at the gate) or waiting for room.
        while gate.waitingCount + harness.service.slots.waitingCount < 3 { try await Task.sleep(for: .milliseconds(5)) }
        #expect(gate.waitingCount == 2, "two downloads of max-src-bytes fill the budget")
        #expect(harness.service.slots.waitingCount == 1)
        #expect(harness.service.slots.heldBytes == 8192)
        gate.open()
        for request in requests { #expect(try await request.value.status == 200) }
        for name in ["/a.png", "/b.png", "/c.png"] { #expect(harness.origin.requestCount(name) == 1, "\(name)") }
        #expect(harness.service.slots.heldBytes == 0, "every place gave its bytes back")
    }

    @Test("Given a request that cannot get room before only download-timeout of its deadline is left, then 503 with Retry-After, its source never fetched")
    func busyBeforeFetching() async throws {
        // It may wait max-processing-time − download-timeout = 1 s for room; the two it waits
        // behind have 59 s more before their own deadline.
        let harness = try await Self.start {
            $0.processingTimeout = 60
            $0.downloadTimeout = 59
            $0.retryAfter = 3
        }
        defer { Task { await harness.stop() } }
        let gate = HTTPTestServer.Gate()
        defer { gate.open() }
        try Self.route(harness, ["/a.png", "/b.png", "/c.png"], gate: gate)
        let held = ["/a.png", "/b.png"].map { name in
            Task { try await harness.get(harness.plainPath(name, options: "w:4", ext: "png")) }
        }
        while gate.waitingCount < 2 { try await Task.sleep(for: .milliseconds(5)) }
        let late = try await harness.get(harness.plainPath("/c.png", options: "w:4", ext: "png"))
        #expect(late.status == 503, "\(late.text)")
        #expect(late.header("Retry-After") == "3")
        #expect(late.text.contains("too busy to start before the deadline"), "\(late.text)")
        #expect(harness.origin.requestCount("/c.png") == 0, "refused before its source was fetched")
        gate.open()
        for request in held { #expect(try await request.value.status == 200) }
    }

    @Test("Given a wait for room and its limit, then the place is taken or the waiter leaves with WaitExpired taking nothing; bytes settle to the source's size")
    func slotsBytes() async throws {
        let slots = SourceSlots(workers: 1, fetchAhead: nil, byteBudget: 100)
        try await slots.acquire(bytes: 60)
        #expect(slots.heldBytes == 60)
        await #expect(throws: SourceSlots.WaitExpired.self) {
            try await slots.acquire(bytes: 60, until: .now + .milliseconds(50))
        }
        #expect(slots.waitingCount == 0 && slots.heldBytes == 60, "the expired waiter took nothing")
        let waiter = Task { try await slots.acquire(bytes: 60) }
        while slots.waitingCount == 0 { await Task.yield() }
        slots.settle(reserved: 60, actual: 10)
        try await waiter.value
        #expect(slots.heldBytes == 70)
        slots.release(bytes: 10)
        slots.release(bytes: 60)
        #expect(slots.heldBytes == 0)
    }

    @Test("Given max-source-memory in the settings, then it is read; its default holds every worker's source and one more, at least 1 GiB")
    func setting() throws {
        var configuration = try ImageServiceSettings.configuration(from: ["max-source-memory": ["300000000"]]).0
        #expect(configuration.sourceMemory == 300_000_000)
        configuration.maxSourceMemory = nil
        configuration.workers = 4
        #expect(configuration.sourceMemory == 1 << 30)
        configuration.workers = 32
        #expect(configuration.sourceMemory == 33 * 64 * 1024 * 1024)
        configuration.maxSourceMemory = 10
        #expect(configuration.sourceMemory == configuration.limits.maxSourceBytes, "never under one source")
        #expect(throws: ImageServiceSettings.Problem.self) { try ImageServiceSettings.configuration(from: ["max-source-memory": ["0"]]) }
        #expect(ImageServiceConfiguration().sourceWaitLimit == 20)
    }
}
