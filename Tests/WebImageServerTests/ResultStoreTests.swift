import Foundation
import Synchronization
import Testing
@testable import WebImageServer
import WebImageTesting

/// The shared result store over loopback HTTP (SPEC V-12): instances sharing a store answer
/// each other's renders, keys follow the canonical request, and a failing, slow or corrupt
/// store costs a metric, never a request.
@Suite(.serialized, .timeLimit(.minutes(3))) struct ResultStoreTests {
    @Test func aSecondInstanceAnswersWithoutRenderingOrFetching() async throws {
        let directory = try temporaryStoreDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let firstStore = ObservedResultStore(DirectoryResultStore(directory: directory))
        let first = try await ServiceHarness.start { $0.resultStore = firstStore }
        defer { Task { await first.stop() } }
        first.origin.route("/src.png", .ok(try TestImages.png(width: 64, height: 48), contentType: "image/png"))
        let path = first.plainPath("/src.png", options: "rs:fit:32:32", ext: "webp")
        let rendered = try await first.get(path)
        #expect(rendered.status == 200 && rendered.header("Content-Type") == "image/webp")
        let written = await firstStore.nextWrite()
        #expect(written != nil)
        #expect(try await first.metric("webimage_renders_total") == 1)

        let second = try await ServiceHarness.start { $0.resultStore = DirectoryResultStore(directory: directory) }
        defer { Task { await second.stop() } }
        let served = try await second.get(path)
        #expect(served.status == 200)
        #expect(served.body == rendered.body)
        #expect(served.header("ETag") == rendered.header("ETag"))
        #expect(served.header("Content-Type") == "image/webp")
        #expect(served.header("Content-Disposition") == rendered.header("Content-Disposition"))
        #expect(served.header("Cache-Control") == rendered.header("Cache-Control"))
        #expect(first.origin.requestCount("/src.png") == 1, "the second instance must not fetch the source")
        #expect(try await second.metric("webimage_renders_total") == 0)
        #expect(try await second.metric("webimage_result_store_hits_total") == 1)
        #expect(second.service.decodeCount == 0)
        // A conditional request against the stored ETag is a 304 from the store.
        let third = try await ServiceHarness.start { $0.resultStore = DirectoryResultStore(directory: directory) }
        defer { Task { await third.stop() } }
        let notModified = try await third.get(path, headers: [("If-None-Match", rendered.header("ETag") ?? "")])
        #expect(notModified.status == 304 && notModified.body.isEmpty)
        #expect(try await third.metric("webimage_renders_total") == 0)
        #expect(first.origin.requestCount("/src.png") == 1)
    }

    /// Found by `make cluster-hosts`: requests that differ only in how the format is chosen
    /// (`@png` and the source's own format here, `Accept` buckets there) meet one render, and
    /// the one that found it in memory wrote nothing, so after a restart it was rendered again.
    @Test func everyFormatChoiceThatMeetsOneRenderIsStored() async throws {
        let directory = try temporaryStoreDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let firstStore = ObservedResultStore(DirectoryResultStore(directory: directory))
        let first = try await ServiceHarness.start { $0.resultStore = firstStore }
        defer { Task { await first.stop() } }
        first.origin.route("/src.png", .ok(try TestImages.png(width: 64, height: 48), contentType: "image/png"))
        let fixed = first.plainPath("/src.png", options: "rs:fit:32:32", ext: "png")
        let sourceFormat = first.plainPath("/src.png", options: "rs:fit:32:32")
        let a = try await first.get(fixed)
        let b = try await first.get(sourceFormat)
        let c = try await first.get(sourceFormat)
        #expect(a.status == 200 && b.status == 200 && c.status == 200)
        #expect(a.header("ETag") == b.header("ETag") && a.body == b.body, "one render serves both")
        #expect(try await first.metric("webimage_renders_total") == 1)
        await first.service.resultStore?.flush()
        #expect(Set(firstStore.written).count == 2, "each format choice is stored under its own key")
        #expect(firstStore.written.count == 2, "each key once")

        let fetched = first.origin.requestCount("/src.png")
        let second = try await ServiceHarness.start { $0.resultStore = DirectoryResultStore(directory: directory) }
        defer { Task { await second.stop() } }
        for path in [fixed, sourceFormat] {
            let served = try await second.get(path)
            #expect(served.status == 200 && served.body == a.body)
        }
        #expect(try await second.metric("webimage_renders_total") == 0)
        #expect(first.origin.requestCount("/src.png") == fetched, "the second instance fetches nothing")
    }

    @Test func keysFollowTheCanonicalRequestNotTheSignature() async throws {
        let store = ObservedResultStore(MemoryResultStore())
        let pairs = [URLSigner.KeyPair(key: Array("key-one".utf8), salt: Array("salt-one".utf8)),
                     URLSigner.KeyPair(key: Array("key-two".utf8), salt: Array("salt-two".utf8))]
        let harness = try await ServiceHarness.start {
            $0.resultStore = store
            $0.keyPairs = pairs
            try? $0.presets.define("small=w:32")
        }
        defer { Task { await harness.stop() } }
        harness.origin.route("/src.png", .ok(try TestImages.png(width: 64, height: 48), contentType: "image/png"))
        let source = harness.origin.url("/src.png").absoluteString
        func signed(_ options: String, ext: String, pair: Int = 0) -> String {
            let path = "/\(options)/plain/\(source)@\(ext)"
            return "/" + URLSigner(keyPairs: [pairs[pair]]).sign(path) + path
        }
        var keys: [ResultStoreKey] = []
        for (options, ext) in [("w:32/h:20", "png"), ("w:16/h:20", "png"), ("w:32/h:20", "webp"), ("w:32/h:20/cb:2", "png")] {
            let reply = try await harness.get(signed(options, ext: ext))
            #expect(reply.status == 200, "\(options) \(reply.text)")
            keys.append(try #require(await store.nextWrite()))
        }
        #expect(Set(keys).count == 4, "options, format and cache buster each change the key")
        #expect(try await harness.metric("webimage_renders_total") == 4)
        let fetches = harness.origin.requestCount("/src.png")

        // Another signature, the options in another order, a preset for `w:32`: the same result.
        for path in [signed("w:32/h:20", ext: "png", pair: 1), signed("h:20/w:32", ext: "png"), signed("pr:small/h:20", ext: "png")] {
            let reply = try await harness.get(path)
            #expect(reply.status == 200)
            #expect(store.lookedUp.last == keys[0], "\(path)")
        }
        #expect(try await harness.metric("webimage_renders_total") == 4, "each was answered from the store")
        #expect(try await harness.metric("webimage_result_store_hits_total") == 3)
        #expect(harness.origin.requestCount("/src.png") == fetches, "a store hit fetches nothing")
    }

    @Test func aVanishedOrUnwritableStoreOnlyCostsAMetric() async throws {
        let parent = try temporaryStoreDirectory()
        defer { try? FileManager.default.removeItem(at: parent) }
        let vanished = parent.appendingPathComponent("gone", isDirectory: true)
        let notADirectory = parent.appendingPathComponent("file")
        try Data("not a directory".utf8).write(to: notADirectory)
        for directory in [vanished, notADirectory] {
            let harness = try await ServiceHarness.start { $0.resultStore = DirectoryResultStore(directory: directory) }
            defer { Task { await harness.stop() } }
            harness.origin.route("/src.png", .ok(try TestImages.png(width: 40, height: 30), contentType: "image/png"))
            let reply = try await harness.get(harness.plainPath("/src.png", options: "w:20", ext: "png"))
            #expect(reply.status == 200 && reply.header("Content-Type") == "image/png")
            // The lookup failed, then the queued write did.
            try await harness.waitForMetric("webimage_result_store_errors_total", atLeast: 2)
            #expect(try await harness.metric("webimage_renders_total") == 1)
            #expect(try await harness.metric("webimage_result_store_writes_total") == 0)
        }
        #expect(!FileManager.default.fileExists(atPath: vanished.path), "a vanished store is not created again")
    }

    @Test func aCorruptEntryIsAMiss() async throws {
        let directory = try temporaryStoreDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let firstStore = ObservedResultStore(DirectoryResultStore(directory: directory))
        let first = try await ServiceHarness.start { $0.resultStore = firstStore }
        defer { Task { await first.stop() } }
        first.origin.route("/src.png", .ok(try TestImages.png(width: 40, height: 30), contentType: "image/png"))
        let path = first.plainPath("/src.png", options: "w:20", ext: "png")
        let rendered = try await first.get(path)
        let key = try #require(await firstStore.nextWrite())
        let file = directory.appendingPathComponent(String(key.name.prefix(2))).appendingPathComponent(key.name)
        let whole = try Data(contentsOf: file)
        for damaged in [whole.prefix(whole.count - 7), whole.prefix(10), Data(), whole.dropLast() + Data([whole.last! ^ 0xFF])] {
            try Data(damaged).write(to: file)
            let store = DirectoryResultStore(directory: directory)
            #expect(try await store.entry(for: key) == nil)
        }
        let second = try await ServiceHarness.start { $0.resultStore = DirectoryResultStore(directory: directory) }
        defer { Task { await second.stop() } }
        let served = try await second.get(path)
        #expect(served.status == 200 && served.body == rendered.body)
        #expect(try await second.metric("webimage_result_store_misses_total") == 1)
        #expect(try await second.metric("webimage_renders_total") == 1)
        // An entry over the store's size bound reads as none.
        try whole.write(to: file)
        #expect(try await DirectoryResultStore(directory: directory).entry(for: key) != nil)
        #expect(try await DirectoryResultStore(directory: directory, maxEntryBytes: 8).entry(for: key) == nil)
    }

    @Test func expiredEntriesAreNotServed() async throws {
        let directory = try temporaryStoreDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let start = Date(timeIntervalSince1970: 1_900_000_000)
        let firstStore = ObservedResultStore(DirectoryResultStore(directory: directory))
        let first = try await ServiceHarness.start({ $0.resultStore = firstStore; $0.ttl = 100 }, now: { start })
        defer { Task { await first.stop() } }
        first.origin.route("/src.png", .ok(try TestImages.png(width: 40, height: 30), contentType: "image/png"))
        let path = first.plainPath("/src.png", options: "w:20", ext: "png")
        #expect(try await first.get(path).status == 200)
        _ = await firstStore.nextWrite()

        let within = try await ServiceHarness.start({ $0.resultStore = DirectoryResultStore(directory: directory); $0.ttl = 100 }, now: { start + 99 })
        defer { Task { await within.stop() } }
        #expect(try await within.get(path).status == 200)
        #expect(try await within.metric("webimage_renders_total") == 0)

        let after = try await ServiceHarness.start({ $0.resultStore = DirectoryResultStore(directory: directory); $0.ttl = 100 }, now: { start + 101 })
        defer { Task { await after.stop() } }
        #expect(try await after.get(path).status == 200)
        #expect(try await after.metric("webimage_result_store_misses_total") == 1)
        #expect(try await after.metric("webimage_renders_total") == 1)
        #expect(first.origin.requestCount("/src.png") == 2)
    }

    @Test func writesDoNotDelayAnswersAndAFullQueueDrops() async throws {
        let store = GatedResultStore()
        let harness = try await ServiceHarness.start {
            $0.resultStore = store
            $0.resultStoreQueue = 1
            // Only the gate ends the held write: its timeout (10 × this) outlasts any wait here.
            $0.resultStoreTimeout = 60
        }
        defer { Task { await harness.stop() } }
        harness.origin.route("/src.png", .ok(try TestImages.png(width: 40, height: 30), contentType: "image/png"))
        let reply = try await harness.get(harness.plainPath("/src.png", options: "w:20", ext: "png"))
        #expect(reply.status == 200, "answered while the write waits at its gate")
        await store.nextWriteStart()
        #expect(store.finishedWrites == 0)
        // One write is held, one waits in the queue (of 1), the next is dropped.
        #expect(try await harness.get(harness.plainPath("/src.png", options: "w:21", ext: "png")).status == 200)
        #expect(try await harness.get(harness.plainPath("/src.png", options: "w:22", ext: "png")).status == 200)
        #expect(try await harness.metric("webimage_result_store_dropped_total") == 1)
        store.openWrites()
        try await harness.waitForMetric("webimage_result_store_writes_total", atLeast: 2)
        #expect(store.finishedWrites == 2)
    }

    @Test func shutdownWritesWhatIsQueued() async throws {
        let store = ObservedResultStore(MemoryResultStore())
        let harness = try await ServiceHarness.start { $0.resultStore = store }
        harness.origin.route("/src.png", .ok(try TestImages.png(width: 40, height: 30), contentType: "image/png"))
        #expect(try await harness.get(harness.plainPath("/src.png", options: "w:20", ext: "png")).status == 200)
        await harness.stop()
        #expect(store.written.count == 1)
    }

    @Test func aSlowStoreIsSkipped() async throws {
        let store = GatedResultStore(holdLookups: true)
        store.openWrites()
        let harness = try await ServiceHarness.start {
            $0.resultStore = store
            $0.resultStoreTimeout = 0.05
        }
        defer { Task { await harness.stop() } }
        harness.origin.route("/src.png", .ok(try TestImages.png(width: 40, height: 30), contentType: "image/png"))
        let reply = try await harness.get(harness.plainPath("/src.png", options: "w:20", ext: "png"))
        #expect(reply.status == 200)
        #expect(try await harness.metric("webimage_result_store_errors_total") == 1)
        #expect(try await harness.metric("webimage_renders_total") == 1)
        store.openLookups()
    }
}
