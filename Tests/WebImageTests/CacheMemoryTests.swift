import Foundation
import Testing
@testable import WebImage

@Suite("Memory cache (K-1…K-4)")
struct CacheMemoryTests {
    /// An image whose cost is `cost` bytes (cost = width × height × 4).
    private func image(cost: Int) -> Image { CacheFixtures.image(width: max(1, cost / 4), height: 1) }

    @Test("Given entries, when one is read, then the least recently used is evicted first")
    func lruOrder() {
        let cache = MemoryCache(configuration: .init(costLimit: 1000, countLimit: 3, maxEntryCostFraction: 1))
        cache.setImage(image(cost: 4), forKey: "a")
        cache.setImage(image(cost: 4), forKey: "b")
        cache.setImage(image(cost: 4), forKey: "c")
        #expect(cache.image(forKey: "a") != nil)
        #expect(cache.keysByRecency == ["a", "c", "b"])
        let d = image(cost: 4)
        cache.setImage(d, forKey: "d")
        #expect(cache.count == 3)
        #expect(cache.keysByRecency == ["d", "a", "c"])
        #expect(cache.image(forKey: "d") === d)
    }

    @Test("Given a cost limit, when it is exceeded, then LRU entries go until the total fits")
    func costLimit() {
        let cache = MemoryCache(configuration: .init(costLimit: 100, maxEntryCostFraction: 1, shouldUseWeakMemoryCache: false))
        for key in ["a", "b", "c", "d"] { cache.setImage(image(cost: 40), forKey: key) }
        #expect(cache.totalCost <= 100)
        #expect(cache.count == 2)
        #expect(cache.keysByRecency == ["d", "c"])
        #expect(cache.image(forKey: "a") == nil)
    }

    @Test("Given an entry over the per-entry fraction, when stored, then it is not kept")
    func perEntryLimit() {
        let cache = MemoryCache(configuration: .init(costLimit: 1000, maxEntryCostFraction: 0.1, shouldUseWeakMemoryCache: false))
        cache.setImage(image(cost: 100), forKey: "fits")
        cache.setImage(image(cost: 104), forKey: "big")
        #expect(cache.image(forKey: "fits") != nil)
        #expect(cache.image(forKey: "big") == nil)
        #expect(cache.totalCost == 100)
    }

    @Test("Given a time to live, when an entry is older, then it is a miss")
    func timeToLive() {
        let clock = CacheFixtures.Clock()
        let cache = MemoryCache(configuration: .init(entryLifetime: 10), now: { clock.uptime })
        let kept = image(cost: 4)
        cache.setImage(kept, forKey: "a")
        clock.advance(5)
        #expect(cache.image(forKey: "a") === kept)
        clock.advance(6)
        #expect(!cache.containsImage(forKey: "a"))
        #expect(cache.image(forKey: "a") == nil)
        #expect(cache.count == 0)
    }

    @Test("Given an evicted image still alive elsewhere, when queried, then the weak layer returns it and puts it back")
    func weakLayer() {
        let cache = MemoryCache(configuration: .init(costLimit: 1000, countLimit: 1, maxEntryCostFraction: 1))
        let held = image(cost: 4)
        cache.setImage(held, forKey: "held")
        cache.setImage(image(cost: 4), forKey: "other")
        #expect(cache.count == 1)
        #expect(cache.image(forKey: "held") === held)
        #expect(cache.keysByRecency == ["held"])
    }

    @Test("Given an evicted image nobody holds, when queried, then it is a miss")
    func weakLayerReleased() {
        let cache = MemoryCache(configuration: .init(costLimit: 1000, countLimit: 1, maxEntryCostFraction: 1))
        cache.setImage(image(cost: 4), forKey: "gone")
        cache.setImage(image(cost: 4), forKey: "other")
        #expect(cache.image(forKey: "gone") == nil)
    }

    @Test("Given the weak layer off, when an evicted image is still held, then it is a miss")
    func weakLayerOff() {
        let cache = MemoryCache(configuration: .init(countLimit: 1, shouldUseWeakMemoryCache: false))
        let held = image(cost: 4)
        cache.setImage(held, forKey: "held")
        cache.setImage(image(cost: 4), forKey: "other")
        #expect(cache.image(forKey: "held") == nil)
        withExtendedLifetime(held) {}
    }

    @Test("Given entries, when trimmed, removed and cleared, then totals follow")
    func trimAndRemove() {
        let cache = MemoryCache(configuration: .init(costLimit: 10_000, maxEntryCostFraction: 1, shouldUseWeakMemoryCache: false))
        for i in 0..<10 { cache.setImage(image(cost: 100), forKey: "k\(i)") }
        #expect(cache.totalCost == 1000)
        cache.trim(toCost: 450)
        #expect(cache.count == 4)
        #expect(cache.keysByRecency == ["k9", "k8", "k7", "k6"])
        cache.trim(toCount: 2)
        #expect(cache.keysByRecency == ["k9", "k8"])
        let held = cache.image(forKey: "k8")
        cache.removeImage(forKey: "k8")
        #expect(!cache.containsImage(forKey: "k8"))
        #expect(held != nil)
        cache.removeAll()
        #expect(cache.count == 0 && cache.totalCost == 0)
    }

    @Test("Given an image stored, when read, then the same instance comes back (no copy)")
    func noCopy() {
        let cache = MemoryCache()
        let stored = CacheFixtures.image(width: 64, height: 64)
        cache.setImage(stored, forKey: "k")
        let hit = cache.image(forKey: "k")
        #expect(hit === stored)
        #expect(hit?.pixels === stored.pixels)
    }

    @Test("Given physical memory sizes, then the default cost limit is a quarter, capped")
    func defaultLimit() {
        #expect(MemoryCache.defaultCostLimit(physicalMemory: 1 << 30) == (1 << 30) / 4)
        #expect(MemoryCache.defaultCostLimit(physicalMemory: 64 << 30) == 512 << 20)
        #expect(MemoryCache.defaultCostLimit(physicalMemory: 0) == 16 << 20)
        #expect(MemoryCache.defaultCostLimit > 0)
    }

    @Test("Given many tasks, when they store and read at once, then totals stay consistent")
    func concurrentAccess() async {
        let cache = MemoryCache(configuration: .init(costLimit: 4000, maxEntryCostFraction: 1))
        await withTaskGroup(of: Void.self) { group in
            for t in 0..<8 {
                group.addTask {
                    for i in 0..<200 {
                        let key = "k\((t * 31 + i) % 50)"
                        if i % 3 == 0 { cache.setImage(CacheFixtures.image(width: 5, height: 5), forKey: key) }
                        _ = cache.image(forKey: key)
                    }
                }
            }
        }
        #expect(cache.totalCost <= 4000)
        #expect(cache.keysByRecency.count == cache.count)
    }
}
