import Foundation
import Testing
@testable import WebImage

/// Size trimming removes the oldest-stored entries first, also among entries stored in the
/// same millisecond (Nuke's sweep scenario: the entry just stored must survive its own trim).
@Suite("Disk cache: trim order for equal dates")
struct CacheDiskTrimOrderTests {
    @Test("Given four entries with one date, then the index gives them back in store order")
    func equalDatesInStoreOrder() {
        var index = DiskCacheIndex()
        for name in ["key1", "key2", "key3", "key4", "key5"] { index.upsert(name, size: 1, date: 1_700_000_000_000) }
        index.upsert("key2", size: 1, date: 1_700_000_000_000)  // stored again: now the newest
        var order: [String] = []
        while let (name, _) = index.popOldest() { order.append(name) }
        #expect(order == ["key1", "key3", "key4", "key5", "key2"])
    }

    @Test("Given maxDiskSize 3 MB and key1…key4 of 1 MB stored back to back, then the trim keeps key4", arguments: 0..<5)
    func newestSurvivesItsOwnTrim(round: Int) async throws {
        let dir = CacheFixtures.temporaryDirectory()
        defer { CacheFixtures.remove(dir) }
        var configuration = CacheFixtures.diskConfiguration()
        configuration.maxDiskSize = 3_000_000
        let cache = DiskCache(directory: dir, configuration: configuration)
        let megabyte = Data(repeating: UInt8(round), count: 1_000_000)
        for key in ["key1", "key2", "key3", "key4"] { try await cache.storeAndWait(megabyte, forKey: key) }
        _ = cache.removeExpiredData()
        #expect(cache.contains("key4"), "the newest entry stays")
        #expect(cache.totalSize <= 1_500_000)
        #expect(!cache.contains("key1"))
    }
}
