import Foundation
import Testing
@testable import WebImage

/// The index at 100 000 entries (SPEC S-4, X-4). No timing assertions: the durations are
/// printed and recorded in docs/PERFORMANCE.md.
@Suite("Disk cache index at scale (X-4)")
struct CacheScaleTests {
    private static let entryCount = 100_000

    private static func name(_ i: Int) -> String { DiskCacheFileName.forKey("https://example.com/\(i).jpg") }

    @Test("Given 100 000 index entries, when the oldest half expires, then totals and order hold")
    func indexAtScale() {
        let clock = ContinuousClock()
        var index = DiskCacheIndex()
        let names = (0..<Self.entryCount).map(Self.name)
        let insert = clock.measure {
            for i in 0..<Self.entryCount {
                // Dates in scrambled order so the heap does real work.
                index.upsert(names[i], size: 100 + i % 50, date: Int64((i * 7919) % Self.entryCount))
            }
        }
        #expect(index.count == Self.entryCount)
        var removed = 0
        var lastDate = Int64.min
        var ordered = true
        let expire = clock.measure {
            while let (_, date) = index.oldest(), date < Int64(Self.entryCount / 2) {
                guard let popped = index.popOldest() else { break }
                if popped.entry.date < lastDate { ordered = false }
                lastDate = popped.entry.date
                removed += 1
            }
        }
        #expect(ordered)
        #expect(removed == Self.entryCount / 2)
        #expect(index.count == Self.entryCount / 2)
        #expect(index.totalSize == index.entries.values.reduce(0) { $0 + $1.size })
        print("[scale] DiskCacheIndex: \(Self.entryCount) upserts \(insert), expire half \(expire)")
    }

    @Test("Given an index file of 100 000 entries, when opened and expired, then half is removed and totals follow")
    func indexFileAtScale() throws {
        let dir = CacheFixtures.temporaryDirectory()
        defer { CacheFixtures.remove(dir) }
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        var bytes = Array("WEBIMAGE-INDEX 1 modificationDate\n".utf8)
        for i in 0..<Self.entryCount {
            // Even entries are two weeks old, odd ones fresh.
            let date = i % 2 == 0 ? now - 14 * 86_400_000 - Int64(i) : now - Int64(i)
            DiskCacheJournal.appendUpsert(name: Self.name(i), size: 1000, date: date, to: &bytes)
        }
        try Data(bytes).write(to: dir.appendingPathComponent(".index"))
        let clock = ContinuousClock()
        let cache = DiskCache(directory: dir, configuration: CacheFixtures.diskConfiguration(maxAge: 7 * 86400))
        var count = 0
        let load = clock.measure { count = cache.totalCount }
        #expect(count == Self.entryCount)
        #expect(cache.totalSize == Self.entryCount * 1000)
        var removed = 0
        let expire = clock.measure { removed = cache.removeExpiredData() }
        #expect(removed == Self.entryCount / 2)
        #expect(cache.totalCount == Self.entryCount / 2)
        // One more store is O(1): no directory walk, the totals just move.
        var storeTime = Duration.zero
        storeTime = clock.measure {
            cache.store(Data([1, 2, 3]), forKey: "one-more")
            cache.flush()
        }
        #expect(cache.totalCount == Self.entryCount / 2 + 1)
        // A second process (a fresh instance) replays the same file.
        let other = DiskCache(directory: dir, configuration: CacheFixtures.diskConfiguration(maxAge: 7 * 86400))
        #expect(other.totalCount == Self.entryCount / 2 + 1)
        #expect(other.totalSize == (Self.entryCount / 2) * 1000 + 3)
        print("[scale] DiskCache index file: load \(Self.entryCount) entries \(load), removeExpiredData of \(removed) \(expire), one store after \(storeTime)")
    }
}
