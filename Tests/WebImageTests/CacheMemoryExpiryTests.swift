import Foundation
import Synchronization
import Testing
@testable import WebImage

/// Memory expiry that does not wait for a read (Kingfisher's `testAutoCleanExpiredMemory`,
/// Nuke's per-entry TTL).
@Suite("Memory cache: expiry without a read (K-1…K-4)")
struct CacheMemoryExpiryTests {
    private func image(cost: Int) -> Image { CacheFixtures.image(width: max(1, cost / 4), height: 1) }

    private func cache(lifetime: TimeInterval? = nil, clock: ManualClock) -> MemoryCache {
        MemoryCache(
            configuration: .init(costLimit: 1 << 20, maxEntryCostFraction: 1, entryLifetime: lifetime),
            now: { clock.now })
    }

    @Test("Given expired entries nobody reads, when other images are stored, then the expired ones leave cost and count within a bounded number of stores")
    func amortisedSweep() {
        let clock = ManualClock()
        let cache = cache(lifetime: 10, clock: clock)
        for index in 0..<20 { cache.setImage(image(cost: 40), forKey: "old-\(index)") }
        #expect(cache.count == 20)
        clock.advance(11)
        // Each store looks at `expirySweepPerStore` slots: 20 slots are covered in 5 stores.
        let stores = (20 + MemoryCache.expirySweepPerStore - 1) / MemoryCache.expirySweepPerStore
        for index in 0..<stores { cache.setImage(image(cost: 4), forKey: "new-\(index)") }
        #expect(cache.count == stores)
        #expect(cache.totalCost == 4 * stores)
        #expect(Set(cache.keysByRecency) == Set((0..<stores).map { "new-\($0)" }))
    }

    @Test("Given expired entries, when removeExpired() is called, then they all go at once and live ones stay")
    func removeExpiredNow() {
        let clock = ManualClock()
        let cache = cache(lifetime: 10, clock: clock)
        for index in 0..<8 { cache.setImage(image(cost: 40), forKey: "old-\(index)") }
        clock.advance(6)
        let fresh = image(cost: 8)
        cache.setImage(fresh, forKey: "fresh")
        clock.advance(6)
        #expect(cache.removeExpired() == 8)
        #expect(cache.count == 1)
        #expect(cache.totalCost == 8)
        #expect(cache.image(forKey: "fresh") === fresh)
        #expect(cache.removeExpired() == 0)
    }

    @Test("Given per-entry lifetimes, when time passes, then each entry expires on its own lifetime, overriding the default")
    func perEntryLifetime() {
        let clock = ManualClock()
        let cache = cache(lifetime: 100, clock: clock)
        let short = image(cost: 4)
        let forever = image(cost: 8)
        let plain = image(cost: 12)
        cache.setImage(short, forKey: "short", expiresAfter: 5)
        cache.setImage(forever, forKey: "forever", expiresAfter: .infinity)
        cache.setImage(plain, forKey: "plain")
        clock.advance(6)
        #expect(!cache.containsImage(forKey: "short"))
        #expect(cache.image(forKey: "plain") === plain)
        #expect(cache.removeExpired() == 1)
        #expect(cache.totalCost == 20)
        clock.advance(200)
        #expect(cache.removeExpired() == 1)
        #expect(cache.image(forKey: "forever") === forever)
        #expect(cache.image(forKey: "plain") == nil)
    }

    @Test("Given no default lifetime, when an entry is stored with one, then the store-time sweep removes it unread and the weak layer forgets it")
    func perEntryLifetimeWithoutDefault() {
        let clock = ManualClock()
        let cache = cache(clock: clock)
        let held = image(cost: 40)  // still referenced here, so the weak layer could return it
        cache.setImage(held, forKey: "ttl", expiresAfter: 1)
        clock.advance(2)
        cache.setImage(image(cost: 4), forKey: "other")
        #expect(cache.count == 1)
        #expect(cache.totalCost == 4)
        #expect(cache.image(forKey: "ttl") == nil, "an expired image must not come back through the weak layer")
        withExtendedLifetime(held) {}
    }

    @Test("Given an image evicted by a limit but still held, when its lifetime has passed, then the weak layer does not bring it back")
    func weakLayerHonoursLifetime() {
        let clock = ManualClock()
        let cache = MemoryCache(
            configuration: .init(costLimit: 1 << 20, countLimit: 1, maxEntryCostFraction: 1), now: { clock.now })
        let held = image(cost: 4)
        cache.setImage(held, forKey: "ttl", expiresAfter: 5)
        cache.setImage(image(cost: 4), forKey: "other")  // evicts "ttl" to the weak layer
        clock.advance(3)
        #expect(cache.image(forKey: "ttl") === held, "alive and young: found again")
        cache.setImage(image(cost: 4), forKey: "another")  // evicts "ttl" to the weak layer again
        clock.advance(3)
        #expect(!cache.containsImage(forKey: "ttl"))
        #expect(cache.image(forKey: "ttl") == nil, "its age did not restart when it came back")
        withExtendedLifetime(held) {}
    }
}
