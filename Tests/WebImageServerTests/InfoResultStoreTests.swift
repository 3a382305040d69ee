import Foundation
import Testing
import WebImageServer
import WebImageTesting

/// `/info` answers in the shared result store (SPEC V-12, V-14): kept like renders, under keys
/// of their own, and answered by another instance without fetching or decoding.
@Suite(.serialized, .timeLimit(.minutes(3))) struct InfoResultStoreTests {
    @Test("Given two instances sharing a directory store, when the second is asked /info the first answered, then it answers the same JSON without fetching or decoding")
    func aSecondInstanceAnswersInfoWithoutDecoding() async throws {
        let directory = try temporaryStoreDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let firstStore = ObservedResultStore(DirectoryResultStore(directory: directory))
        let first = try await ServiceHarness.start { $0.resultStore = firstStore }
        defer { Task { await first.stop() } }
        first.origin.route("/src.png", .ok(try TestImages.png(width: 120, height: 60), contentType: "image/png"))
        let path = "/info" + first.plainPath("/src.png", options: "bhc:5:3")
        let computed = try await first.get(path)
        #expect(computed.status == 200 && computed.header("Content-Type") == "application/json", "\(computed.text)")
        #expect(computed.text.contains("\"blurhash_components\":\"5x3\""), "\(computed.text)")
        #expect(await firstStore.nextWrite() != nil)
        #expect(first.service.decodeCount == 1)

        let second = try await ServiceHarness.start { $0.resultStore = DirectoryResultStore(directory: directory) }
        defer { Task { await second.stop() } }
        let served = try await second.get(path)
        #expect(served.status == 200)
        #expect(served.body == computed.body)
        #expect(served.header("ETag") == computed.header("ETag"))
        #expect(served.header("Content-Type") == "application/json")
        #expect(served.header("Cache-Control") == computed.header("Cache-Control"))
        #expect(served.header("Content-Disposition") == computed.header("Content-Disposition"))
        #expect(second.service.decodeCount == 0, "the second instance must not decode")
        #expect(first.origin.requestCount("/src.png") == 1, "the second instance must not fetch the source")
        #expect(try await second.metric("webimage_result_store_hits_total") == 1)
        // Asked again, it is the hit path's: no second lookup.
        #expect(try await second.get(path).body == computed.body)
        #expect(try await second.metric("webimage_result_store_hits_total") == 1)

        // A conditional request on a third instance is a 304 from the store.
        let third = try await ServiceHarness.start { $0.resultStore = DirectoryResultStore(directory: directory) }
        defer { Task { await third.stop() } }
        let notModified = try await third.get(path, headers: [("If-None-Match", computed.header("ETag") ?? "")])
        #expect(notModified.status == 304 && notModified.body.isEmpty)
        #expect(third.service.decodeCount == 0)
        #expect(first.origin.requestCount("/src.png") == 1)
    }

    @Test("Given one source, when /info with other BlurHash components and an image of the same options are asked, then each has its own key and none answers for another")
    func infoKeysAreDistinctFromImageKeys() async throws {
        let store = ObservedResultStore(MemoryResultStore())
        let harness = try await ServiceHarness.start { $0.resultStore = store }
        defer { Task { await harness.stop() } }
        harness.origin.route("/src.png", .ok(try TestImages.png(width: 120, height: 60), contentType: "image/png"))
        var keys: [ResultStoreKey] = []
        for path in [
            "/info" + harness.plainPath("/src.png"), "/info" + harness.plainPath("/src.png", options: "bhc:5:3"),
            "/info" + harness.plainPath("/src.png", options: "bhc:3:3"), harness.plainPath("/src.png", options: "ar:1"),
            "/info" + harness.plainPath("/src.png", options: "ar:1/bhc:5:3"), harness.plainPath("/src.png"),
        ] {
            let reply = try await harness.get(path)
            #expect(reply.status == 200, "\(path): \(reply.text)")
            keys.append(try #require(await store.nextWrite()))
        }
        #expect(Set(keys).count == keys.count, "every /info and image request has its own key")
        #expect(try await harness.metric("webimage_result_store_hits_total") == 0)

        // The same /info with its options in another order, on another instance, finds the entry.
        let other = try await ServiceHarness.start { $0.resultStore = store }
        defer { Task { await other.stop() } }
        let source = harness.origin.url("/src.png").absoluteString
        let reply = try await other.get("/info/insecure/bhc:5:3/auto_rotate:true/plain/\(source)")
        #expect(reply.status == 200, "\(reply.text)")
        #expect(store.lookedUp.last == keys[4])
        #expect(try await other.metric("webimage_result_store_hits_total") == 1)
        #expect(other.service.decodeCount == 0)
    }
}
