import Foundation
import Testing
import WebImageServer

/// The directory result store's sweep at start (V-12): the `.tmp-*` files a crashed write left in
/// the shard directories are removed once they are older than any write in progress could be;
/// entries, fresh temporaries (another instance writing now) and other directories are kept.
@Suite struct DirectoryResultStoreSweepTests {
    private func file(_ url: URL, age: TimeInterval) throws {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("x".utf8).write(to: url)
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -age)], ofItemAtPath: url.path)
    }

    @Test("Given old and fresh .tmp-* files in the shards, when a store starts, then only the old ones are removed")
    func removesOldTemporaries() async throws {
        let directory = try temporaryStoreDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let old = [directory.appendingPathComponent("ab/.tmp-1111"), directory.appendingPathComponent("cd/.tmp-2222"),
                   directory.appendingPathComponent("cd/.tmp-3333")]
        let kept = [
            directory.appendingPathComponent("ab/.tmp-fresh"),  // a write in progress elsewhere
            directory.appendingPathComponent("ab/ab0123456789"),  // an entry, however old
            directory.appendingPathComponent("notashard/.tmp-4444"),  // not a shard of the store
            directory.appendingPathComponent(".tmp-5555"),  // not in a shard
        ]
        for url in old { try file(url, age: 2 * 3600) }
        try file(kept[0], age: 5)
        for url in kept.dropFirst() { try file(url, age: 2 * 3600) }

        let store = DirectoryResultStore(directory: directory)
        #expect(await store.removedTemporaryFiles == 3)
        for url in old { #expect(!FileManager.default.fileExists(atPath: url.path), "\(url.lastPathComponent) left") }
        for url in kept { #expect(FileManager.default.fileExists(atPath: url.path), "\(url.lastPathComponent) removed") }
    }

    @Test("Given a shorter maximum age, then younger temporaries go too; given a missing directory, then nothing is removed")
    func ageAndMissingDirectory() async throws {
        let directory = try temporaryStoreDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let young = directory.appendingPathComponent("ef/.tmp-6666")
        try file(young, age: 120)
        #expect(await DirectoryResultStore(directory: directory).removedTemporaryFiles == 0)
        #expect(FileManager.default.fileExists(atPath: young.path))
        #expect(await DirectoryResultStore(directory: directory, temporaryFileMaxAge: 60).removedTemporaryFiles == 1)
        #expect(!FileManager.default.fileExists(atPath: young.path))
        let missing = directory.appendingPathComponent("missing")
        #expect(await DirectoryResultStore(directory: missing).removedTemporaryFiles == 0)
    }
}
