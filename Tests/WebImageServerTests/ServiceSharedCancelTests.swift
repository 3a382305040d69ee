import Foundation
import Testing
@testable import WebImageServer
import WebImageTesting

/// V-8: a fetch shared by identical requests is cancelled only when none of its callers is left.
@Suite struct ServiceSharedCancelTests {
    @Test func aSharedFetchOutlivesOneDisconnectedCaller() async throws {
        let harness = try await ServiceHarness.start { $0.workers = 2; $0.queue = 0; $0.downloadTimeout = 600; $0.processingTimeout = 600 }
        defer { Task { await harness.stop() } }
        let gate = HTTPTestServer.Gate()
        defer { gate.open() }
        harness.origin.route("/held.png", .ok(try TestImages.png(width: 8, height: 8), contentType: "image/png").with { $0.gate = gate })
        let port = try #require(Int(harness.baseURL.split(separator: ":").last ?? ""))
        let source = harness.origin.url("/held.png").absoluteString

        let leaving = try RawClient(port: port)
        try leaving.send("GET \(harness.plainPath("/held.png")) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        #expect(await ServiceDeadlineTests.eventually { gate.waitingCount == 1 })
        let staying = Task { try await harness.get(harness.plainPath("/held.png")) }
        // Both callers wait for the one download.
        var joined = false
        let limit = ContinuousClock.now + .seconds(60)
        while !joined, ContinuousClock.now < limit {
            joined = await harness.service.sources.flights.interested(in: source) == 2
            if !joined { try await Task.sleep(for: .milliseconds(5)) }
        }
        #expect(joined)
        leaving.close()
        #expect(await ServiceDeadlineTests.eventually { harness.service.admittedCount == 1 }, "the leaving request frees its place")
        var remaining = 0
        for _ in 0..<1000 {
            remaining = await harness.service.sources.flights.interested(in: source)
            if remaining == 1 { break }
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(remaining == 1, "the staying caller keeps the download alive")
        gate.open()
        let reply = try await staying.value
        #expect(reply.status == 200, "\(reply.status) \(reply.text)")
        #expect(harness.origin.requestCount("/held.png") == 1, "one download, not cancelled and restarted")
    }
}
