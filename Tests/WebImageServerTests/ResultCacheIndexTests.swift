import HTTPTypes
import NIOCore
import Testing

@testable import WebImageServer

/// The hit-path index (request path → the answer it got) stays within its memory bound when
/// every request has a URL of its own, as a cache-busting or crawling client sends.
@Suite("Result cache: the hit-path index is bounded by what its entries hold (V-8)")
struct ResultCacheIndexTests {
    /// Headers like those of a real 200 answer.
    static func answer(etag: String) -> KnownAnswer {
        var fields = HTTPFields()
        fields[.contentType] = "image/jpeg"
        fields[.cacheControl] = "public, max-age=3600"
        fields[.eTag] = "\"\(etag)\""
        fields[.lastModified] = "Tue, 24 Nov 2026 01:00:00 GMT"
        fields[.contentDisposition] = "inline; filename=\"photo.jpg\""
        fields[.vary] = "Accept"
        var notModified = HTTPFields()
        notModified[.eTag] = "\"\(etag)\""
        notModified[.cacheControl] = "public, max-age=3600"
        return KnownAnswer(
            etag: etag, fields: fields, notModifiedFields: notModified,
            freshUntil: .now + .seconds(60), expires: nil)
    }

    @Test("Given 5,000 distinct request paths, then the index holds no more entries than its byte bound pays for")
    func distinctPathsStayWithinTheBound() {
        let indexCapacity = 64 * 1024
        let cache = ResultCache(capacity: 1 << 20, indexCapacity: indexCapacity)
        let body = ByteBuffer(repeating: 7, count: 100)
        for i in 0..<5_000 {
            let etag = "etag-\(i)"
            cache.insert(RenderedResult(body: body, format: .jpeg), for: etag)
            cache.remember(Self.answer(etag: etag), for: "/insecure/rs:fit:512:512/cb:\(i)/plain/http://origin/p.jpg", variant: .any)
        }
        let usage = cache.indexUsage
        #expect(usage.bytes <= indexCapacity)
        // Each entry costs at least its headers' estimate: the count of kept paths times that
        // must fit the bound (counting only the paths' bytes kept ~1,000 entries here).
        let perEntry = Self.answer(etag: "etag-4999").estimatedBytes
        #expect(usage.paths * perEntry <= indexCapacity)
        #expect(usage.paths > 0)
        // The newest path is still answered from the index.
        let newest = cache.answer(for: "/insecure/rs:fit:512:512/cb:4999/plain/http://origin/p.jpg") { .any }
        #expect(newest?.0.etag == "etag-4999")
    }
}
