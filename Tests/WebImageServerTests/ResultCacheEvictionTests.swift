import NIOCore
import Testing

@testable import WebImageServer

/// The result cache's byte bound (V-8): past it, the least recently used results go first, a
/// read or a hit-path answer making a result recently used.
@Suite("Result cache: eviction in least-recently-used order within the byte bound (V-8)")
struct ResultCacheEvictionTests {
    private static func result(_ bytes: Int) -> RenderedResult {
        RenderedResult(body: ByteBuffer(repeating: 1, count: bytes), format: .jpeg)
    }

    @Test("Given a full cache, when a result is added, then the least recently used ones are evicted until the bytes fit")
    func evictsLeastRecentlyUsed() {
        let cache = ResultCache(capacity: 300)
        for key in ["a", "b", "c"] { cache.insert(Self.result(100), for: key) }
        #expect(cache.keysByRecency == ["c", "b", "a"])
        // Reading "a" makes it the most recently used: "b" is now the oldest.
        #expect(cache.value(for: "a") != nil)
        #expect(cache.keysByRecency == ["a", "c", "b"])
        cache.insert(Self.result(100), for: "d")
        #expect(cache.keysByRecency == ["d", "a", "c"])
        #expect(cache.value(for: "b") == nil)
        // A result of 250 bytes needs three of the 100-byte ones gone, oldest first.
        cache.insert(Self.result(250), for: "e")
        #expect(cache.keysByRecency == ["e"])
        #expect(cache.totalBytes == 250)
    }

    @Test("Given a path answered from a result, when the hit path answers it, then that result counts as recently used")
    func hitPathPromotes() {
        let cache = ResultCache(capacity: 200)
        cache.insert(Self.result(100), for: "a")
        cache.insert(Self.result(100), for: "b")
        cache.remember(ResultCacheIndexTests.answer(etag: "a"), for: "/path-a", variant: .any)
        #expect(cache.answer(for: "/path-a", variant: { .any }) != nil)
        cache.insert(Self.result(100), for: "c")
        #expect(cache.keysByRecency == ["c", "a"])
    }

    @Test("Given a result replaced under its key or larger than the bound, then the byte count stays exact")
    func replacesAndRefusesOversized() {
        let cache = ResultCache(capacity: 300)
        cache.insert(Self.result(100), for: "a")
        cache.insert(Self.result(150), for: "a")
        #expect(cache.totalBytes == 150 && cache.keysByRecency == ["a"])
        cache.insert(Self.result(301), for: "big")
        #expect(cache.value(for: "big") == nil && cache.totalBytes == 150)
    }
}
