import Foundation
import Testing
import WebImage
@testable import WebImageServer
import WebImageTesting

/// The source's identity in ETags (``SourceIdentity``): the origin's strong `ETag` for the URL
/// asked for, else the SHA-256 of the bytes.
@Suite(.timeLimit(.minutes(2))) struct ServiceSourceIdentityTests {
    /// `png` answered with `etag` when given.
    private static func answer(_ png: Data, etag: String?) -> HTTPTestServer.Response {
        var headers: [(name: String, value: String)] = [("Content-Type", "image/png")]
        if let etag { headers.append(("ETag", etag)) }
        return HTTPTestServer.Response(status: 200, headers: headers, body: png)
    }

    /// A harness that fetches the source anew for every request (no source kept fresh).
    private static func harness() async throws -> ServiceHarness {
        try await ServiceHarness.start { $0.sourceRevalidateAfter = 0 }
    }

    @Test func aStrongOriginETagStandsForTheBytes() async throws {
        let harness = try await Self.harness()
        defer { Task { await harness.stop() } }
        let (first, second) = (try TestImages.png(width: 24, height: 16), try TestImages.png(width: 16, height: 24))
        let path = harness.plainPath("/v.png", options: "w:8", ext: "png")
        harness.origin.route("/v.png", Self.answer(first, etag: "\"v1\""))
        let before = try #require(try await harness.get(path).header("ETag"))
        // Other bytes under the same strong validator: the origin promises they are the same
        // representation, so the answer's ETag does not change (no hash of the bytes).
        harness.origin.route("/v.png", Self.answer(second, etag: "\"v1\""))
        #expect(try await harness.get(path).header("ETag") == before)
        // A new validator is a new source.
        harness.origin.route("/v.png", Self.answer(first, etag: "\"v2\""))
        let renamed = try #require(try await harness.get(path).header("ETag"))
        #expect(renamed != before)
        #expect(harness.origin.requestCount("/v.png") == 3)
    }

    @Test func withoutAStrongETagTheBytesAreHashed() async throws {
        let harness = try await Self.harness()
        defer { Task { await harness.stop() } }
        let (first, second) = (try TestImages.png(width: 24, height: 16), try TestImages.png(width: 16, height: 24))
        let path = harness.plainPath("/h.png", options: "w:8", ext: "png")
        for etag in [nil, "W/\"v1\"", "v1"] as [String?] {
            harness.origin.route("/h.png", Self.answer(first, etag: etag))
            let before = try #require(try await harness.get(path).header("ETag"))
            harness.origin.route("/h.png", Self.answer(second, etag: etag))
            let changed = try #require(try await harness.get(path).header("ETag"))
            #expect(changed != before, "ETag \(etag ?? "none"): other bytes, another ETag")
            harness.origin.route("/h.png", Self.answer(first, etag: etag))
            #expect(try await harness.get(path).header("ETag") == before, "ETag \(etag ?? "none"): the same bytes, the same ETag")
        }
    }

    @Test func aRedirectedSourceIsHashed() async throws {
        let harness = try await Self.harness()
        defer { Task { await harness.stop() } }
        let (first, second) = (try TestImages.png(width: 24, height: 16), try TestImages.png(width: 16, height: 24))
        harness.origin.route("/moved.png", .redirect(to: "/target.png"))
        let path = harness.plainPath("/moved.png", options: "w:8", ext: "png")
        harness.origin.route("/target.png", Self.answer(first, etag: "\"v1\""))
        let before = try #require(try await harness.get(path).header("ETag"))
        // The validator belongs to where the redirect led, not to the URL asked for.
        harness.origin.route("/target.png", Self.answer(second, etag: "\"v1\""))
        #expect(try await harness.get(path).header("ETag") != before)
    }

    @Test func validatorIdentities() {
        let bytes = Data("some bytes".utf8)
        let strong = SourceIdentity.validator("\"abc\"", source: "http://a.test/x.jpg")
        #expect(strong != nil && strong?.hasPrefix("etag-") == true)
        #expect(SourceIdentity.validator(" \"abc\"\t", source: "http://a.test/x.jpg") == strong)
        #expect(SourceIdentity.validator("\"abc\"", source: "http://b.test/x.jpg") != strong, "the URL is part of it")
        #expect(SourceIdentity.validator("\"abd\"", source: "http://a.test/x.jpg") != strong)
        for refused in [nil, "", "W/\"abc\"", "abc", "\"\"", "\"a\"b\"", "\"a\u{7F}\"", "\"" + String(repeating: "a", count: 1023) + "\""] as [String?] {
            #expect(SourceIdentity.validator(refused, source: "http://a.test/x.jpg") == nil, "\(refused ?? "nil")")
        }
        #expect(SourceIdentity.of(bytes, entityTag: nil, source: "s") == SourceIdentity.content(bytes))
        #expect(SourceIdentity.content(bytes).count == 64 && !SourceIdentity.content(bytes).hasPrefix("etag-"))
    }

    @Test func aCachedEntryUsesItsValidatorOnlyWhenFetchedWithoutARedirect() {
        let bytes = Data("cached".utf8)
        var marked = DiskCacheExtendedData(originalURL: "http://a.test/x.jpg", eTag: "\"v1\"")
        marked.userData = SourceStore.directValidatorMark
        let unmarked = DiskCacheExtendedData(originalURL: "http://a.test/x.jpg", eTag: "\"v1\"")
        #expect(SourceStore.identity(of: bytes, stored: marked, source: "http://a.test/x.jpg")
            == SourceIdentity.validator("\"v1\"", source: "http://a.test/x.jpg"))
        #expect(SourceStore.identity(of: bytes, stored: unmarked, source: "http://a.test/x.jpg") == SourceIdentity.content(bytes))
        #expect(SourceStore.identity(of: bytes, stored: nil, source: "http://a.test/x.jpg") == SourceIdentity.content(bytes))
    }
}
