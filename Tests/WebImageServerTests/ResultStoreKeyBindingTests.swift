import Foundation
import Testing
import WebImage
import WebImageTesting

@testable import WebImageServer

/// Result-store entries bound to their key (SPEC V-12): an entry found under a key it was not
/// written for is a miss (counted in `webimage_result_store_key_mismatches_total`), and the
/// server settings that change rendered bytes are part of every key, so instances configured
/// differently never answer each other's renders.
@Suite(.serialized, .timeLimit(.minutes(3))) struct ResultStoreKeyBindingTests {
    /// The file of `key` in a ``DirectoryResultStore`` at `directory`.
    static func file(_ directory: URL, _ key: ResultStoreKey) -> URL {
        directory.appendingPathComponent(String(key.name.prefix(2))).appendingPathComponent(key.name)
    }

    @Test("Given a directory store where one entry's file was copied over another's, when the other is asked for, then it is rendered anew, with a key-mismatch metric")
    func aMisplacedEntryIsAMiss() async throws {
        let directory = try temporaryStoreDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let firstStore = ObservedResultStore(DirectoryResultStore(directory: directory))
        let first = try await ServiceHarness.start { $0.resultStore = firstStore }
        defer { Task { await first.stop() } }
        first.origin.route("/src.png", .ok(try TestImages.png(width: 64, height: 48), contentType: "image/png"))
        let small = first.plainPath("/src.png", options: "rs:fit:20:20", ext: "png")
        let large = first.plainPath("/src.png", options: "rs:fit:40:40", ext: "png")
        let smallReply = try await first.get(small)
        let smallKey = try #require(await firstStore.nextWrite())
        let largeReply = try await first.get(large)
        let largeKey = try #require(await firstStore.nextWrite())
        #expect(smallReply.status == 200 && largeReply.status == 200 && smallReply.body != largeReply.body)

        // A sync or restore tool put the small entry where the large one belongs.
        let misplaced = Self.file(directory, largeKey)
        try FileManager.default.removeItem(at: misplaced)
        try FileManager.default.copyItem(at: Self.file(directory, smallKey), to: misplaced)

        let second = try await ServiceHarness.start { $0.resultStore = DirectoryResultStore(directory: directory) }
        defer { Task { await second.stop() } }
        let served = try await second.get(large)
        #expect(served.status == 200)
        #expect(served.body == largeReply.body, "the entry of another key must not answer")
        #expect(try await second.metric("webimage_renders_total") == 1)
        #expect(try await second.metric("webimage_result_store_key_mismatches_total") == 1)
        #expect(try await second.metric("webimage_result_store_misses_total") == 1)
        #expect(try await second.metric("webimage_result_store_hits_total") == 0)
        // The render took the key's place again: the next instance finds it.
        await second.service.resultStore?.flush()
        let third = try await ServiceHarness.start { $0.resultStore = DirectoryResultStore(directory: directory) }
        defer { Task { await third.stop() } }
        #expect(try await third.get(large).body == largeReply.body)
        #expect(try await third.metric("webimage_renders_total") == 0)
    }

    @Test("Given an entry in the earlier format (no key in its header), when it is read, then it is none, never a crash")
    func anOldFormatEntryIsNone() async throws {
        let directory = try temporaryStoreDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = DirectoryResultStore(directory: directory)
        let key = ResultStoreKey(canonicalRequest: "old format")
        let entry = StoredResult(
            key: key, body: Data([9, 8, 7]), contentType: "image/png", etag: "\"e\"", lastModified: nil, expiresAt: .distantFuture)
        try await store.store(entry, for: key)
        let read = try #require(try await store.entry(for: key))
        #expect(read == entry && read.key == key, "an entry names the key it was written for")

        // The same entry as the earlier format wrote it: its header without the key.
        let file = Self.file(directory, key)
        let whole = try Data(contentsOf: file)
        let magic = Data("webimage-result-v2\n".utf8)
        #expect(whole.prefix(magic.count) == magic)
        let length = whole[magic.count..<(magic.count + 4)].reduce(0) { $0 << 8 | Int($1) }
        let headerRange = (magic.count + 4)..<(magic.count + 4 + length)
        var header = try #require(try JSONSerialization.jsonObject(with: whole[headerRange]) as? [String: Any])
        #expect(header.removeValue(forKey: "key") != nil)
        let keyless = try JSONSerialization.data(withJSONObject: header)
        func rebuilt(magic: String, header: Data) -> Data {
            var data = Data(magic.utf8)
            data.append(contentsOf: [0, 0, UInt8(header.count >> 8), UInt8(header.count & 0xFF)])
            return data + header + whole[headerRange.upperBound...]
        }
        for (magic, header) in [("webimage-result-v1\n", keyless), ("webimage-result-v2\n", keyless), ("webimage-result-v1\n", whole[headerRange])] {
            try rebuilt(magic: magic, header: Data(header)).write(to: file)
            #expect(try await store.entry(for: key) == nil, "\(magic.dropLast()) \(String(decoding: header, as: UTF8.self))")
        }
        try rebuilt(magic: "webimage-result-v2\n", header: Data(whole[headerRange])).write(to: file)
        #expect(try await store.entry(for: key) == entry, "the rebuilt current entry reads (the check above is not vacuous)")
    }

    @Test("Given two services with different strip-color-profile or watermark-opacity settings sharing one store, then neither answers the other's render")
    func outputSettingsArePartOfTheKey() async throws {
        let mark = try ServiceWatermarkTests.solidPNG(width: 10, height: 6, ServiceWatermarkTests.blue)
        let source = try ServiceWatermarkTests.solidPNG(width: 64, height: 48, ServiceWatermarkTests.grey)
        let variants: [(String, (inout ImageServiceConfiguration) -> Void, (inout ImageServiceConfiguration) -> Void)] = [
            ("strip-color-profile", { $0.stripColorProfile = true }, { $0.stripColorProfile = false }),
            ("watermark-opacity", { $0.watermarkOpacity = 1 }, { $0.watermarkOpacity = 0.5 }),
        ]
        for (name, one, other) in variants {
            let directory = try temporaryStoreDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            var harnesses: [ServiceHarness] = []
            var replies: [ServiceHarness.Reply] = []
            for configure in [one, other] {
                let store = DirectoryResultStore(directory: directory)
                let harness = try await ServiceHarness.start {
                    $0.resultStore = store
                    $0.watermark = .data(mark)
                    configure(&$0)
                }
                harnesses.append(harness)
                // Both ask for one URL: the first harness's origin serves the source.
                harnesses[0].origin.route("/src.png", .ok(source, contentType: "image/png"))
                let reply = try await harness.get(harnesses[0].plainPath("/src.png", options: "w:32/wm:1", ext: "png"))
                #expect(reply.status == 200, "\(name): \(reply.text)")
                #expect(try await harness.metric("webimage_renders_total") == 1, "\(name): each setting renders its own")
                #expect(try await harness.metric("webimage_result_store_hits_total") == 0, "\(name)")
                await harness.service.resultStore?.flush()
                replies.append(reply)
            }
            for harness in harnesses { await harness.stop() }
            if name == "watermark-opacity" { #expect(replies[0].body != replies[1].body, "half opacity gives other bytes") }
        }
        var base = ImageServiceConfiguration()
        let fingerprint = base.outputFingerprint
        base.stripColorProfile.toggle()
        #expect(base.outputFingerprint != fingerprint)
        base.stripColorProfile.toggle()
        base.watermarkOpacity = 0.25
        #expect(base.outputFingerprint != fingerprint)
    }
}
