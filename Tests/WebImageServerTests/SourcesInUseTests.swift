import Foundation
import Testing
import WebImageTesting

@testable import WebImageServer

/// A source that a request still holds is shared with the requests that come meanwhile, while it
/// is fresh, and fetched again once released (issue #15, memory; ``SourcesInUse``).
@Suite(.timeLimit(.minutes(2))) struct SourcesInUseTests {
    @Test func aHeldSourceIsSharedAndReleasedOnesAreFetchedAgain() async throws {
        let harness = try await ServiceHarness.start { $0.sourceRevalidateAfter = 3600 }
        defer { Task { await harness.stop() } }
        harness.origin.route("/s.png", .ok(try TestImages.png(width: 64, height: 48), contentType: "image/png"))
        let url = harness.origin.url("/s.png").absoluteString
        let sources = harness.service.sources

        var identity = ""
        do {
            let held = try await sources.fetch(url)
            identity = held.identity
            #expect(held.layer == "origin")
            #expect(harness.origin.requestCount("/s.png") == 1)
            defer { withExtendedLifetime(held) {} }
            do {
                let shared = try await sources.fetch(url)
                #expect(shared.layer == "shared")
                #expect(shared.bytes === held.bytes, "the same bytes, not a copy")
                #expect(shared.identity == held.identity)
                #expect(shared.freshFor > 3000 && shared.freshFor <= 3600)
                // Through the service: another size of the held source renders without a fetch.
                let reply = try await harness.get(harness.plainPath("/s.png", options: "rs:fit:32:32", ext: "png"))
                #expect(reply.status == 200)
                #expect(harness.origin.requestCount("/s.png") == 1)
            }
        }
        // Released by every request: nothing keeps the bytes, the next request downloads again.
        let again = try await sources.fetch(url)
        #expect(again.layer == "origin")
        #expect(harness.origin.requestCount("/s.png") == 2)
        #expect(again.identity == identity)

        let metrics = try await harness.get("/metrics")
        #expect(metrics.text.contains("webimage_source_fetches_total{layer=\"shared\"} 1"), "\(metrics.text)")
    }

    @Test func aSourceWithoutFreshnessIsNeverShared() async throws {
        let harness = try await ServiceHarness.start { $0.sourceRevalidateAfter = 0 }
        defer { Task { await harness.stop() } }
        harness.origin.route("/s.png", .ok(try TestImages.png(width: 8, height: 8), contentType: "image/png"))
        let url = harness.origin.url("/s.png").absoluteString
        let held = try await harness.service.sources.fetch(url)
        defer { withExtendedLifetime(held) {} }
        // Never from the table of sources in use: every fetch goes to the downloader, which
        // asks the origin again. A fetch made while the first download is still delivering
        // its body joins it (the downloader's coalescing, also "origin"), so fetch until the
        // origin has been asked twice; the guard only ends a hang.
        var attempts = 0
        while harness.origin.requestCount("/s.png") < 2, attempts < 1000 {
            let again = try await harness.service.sources.fetch(url)
            #expect(again.layer == "origin")
            attempts += 1
            if harness.origin.requestCount("/s.png") < 2 { try await Task.sleep(for: .milliseconds(10)) }
        }
        #expect(harness.origin.requestCount("/s.png") == 2)
    }

    @Test func entriesExpireAndReleasedOnesAreDropped() {
        let table = SourcesInUse()
        let start = ContinuousClock.now
        var source: SourceImage? = SourceImage(data: Data([1, 2, 3]), identity: "a", lastModified: "x", layer: "origin", freshFor: 10)
        table.insert(source!, for: "k", now: start)
        #expect(table.source(for: "k", now: start + .seconds(9))?.identity == "a")
        #expect(table.source(for: "k", now: start + .seconds(10)) == nil, "no longer fresh")
        #expect(table.count == 0, "an expired entry is dropped when found")

        table.insert(source!, for: "k", now: start)
        source = nil
        #expect(table.source(for: "k", now: start) == nil, "released: nothing to share")
        do {
            let others = (0..<100).map { SourceImage(data: Data([UInt8($0)]), identity: "\($0)", lastModified: nil, layer: "origin", freshFor: 10) }
            for (i, other) in others.enumerated() { table.insert(other, for: "o\(i)", now: start) }
            withExtendedLifetime(others) { #expect(table.count == 100) }
        }
        table.insert(SourceImage(data: Data(), identity: "z", lastModified: nil, layer: "origin", freshFor: 10), for: "z", now: start)
        #expect(table.count == 1, "the released entries are dropped on insert")
    }
}
