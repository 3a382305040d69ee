import Foundation
import Synchronization
import Testing
@testable import WebImage
import WebImageCore
import WebImageTesting

/// A handler whose first response is cut after `bytes` body bytes (the connection closes with
/// `Content-Length` promising more); later responses are whole.
private func interruptedOnce(after bytes: Int, _ handler: @escaping HTTPTestServer.Handler) -> HTTPTestServer.Handler {
    let served = Mutex(0)
    return { request in
        var response = handler(request)
        let first = served.withLock { count in
            defer { count += 1 }
            return count == 0
        }
        if first {
            response.declaredLength = response.body.count
            response.body = response.body.prefix(bytes)
        }
        return response
    }
}

/// Downloads `url` and returns the final result with the token (for its metrics) and the
/// progress reports.
private func download(
    _ downloader: ImageDownloader, _ url: URL, context: WebImageContext = WebImageContext()
) async -> (result: Result<ImageLoaderResult, WebImageError>, token: DownloadToken, progress: [(Int64, Int64?)]) {
    let progress = Recorder<(Int64, Int64?)>()
    let results = Recorder<Result<ImageLoaderResult, WebImageError>>()
    let token = downloader.downloadImage(
        with: url, context: context, progress: { received, expected, _ in progress.append((received, expected)) }
    ) { result in
        if case .success(let value) = result, !value.finished { return }
        results.append(result)
    }
    _ = await eventually { results.count == 1 }
    return (results.values.first ?? .failure(.cancelled), token, progress.values)
}

@Suite("Resumable downloads (X-3)")
struct LoadingResumeTests {
    let image = RawTestCoder.encode(width: 128, height: 96, seed: 5)
    let etag = "\"v1\""
    let lastModified = "Tue, 01 Jan 2019 00:00:00 GMT"
    let serverDate = "Tue, 01 Jan 2019 00:05:00 GMT"

    @Test("Given a download cut short, when the URL is requested again, then only the rest is asked for with Range and If-Range, and the joined bytes are the image")
    func resumesAfterTruncation() async throws {
        try await withServerAndDownloader { server, downloader in
            let cut = 20_000
            server.route("/big.raw", handler: interruptedOnce(after: cut, HTTPTestServer.ranges(image, entityTag: etag, lastModified: nil)))
            let url = server.url("/big.raw")

            let first = await download(downloader, url)
            #expect(first.result.transportKind == .connectionLost, "\(first.result)")
            #expect(downloader.resumableData.totalBytes == cut)

            let second = await download(downloader, url)
            let loaded = try second.result.get()
            #expect(loaded.data == image)
            #expect(loaded.image?.width == 128 && loaded.image?.height == 96)
            // Callers see the whole representation.
            #expect(loaded.response?.statusCode == 200)
            #expect(loaded.response?.expectedContentLength == Int64(image.count))
            #expect(loaded.response?.value(forHeader: "Content-Range") == nil)
            #expect(second.token.metrics.resumedBytes == Int64(cut))
            #expect(second.token.metrics.receivedBytes == Int64(image.count))
            #expect(second.progress.last.map { $0.0 } == Int64(image.count))
            #expect(second.progress.allSatisfy { $0.1 == Int64(image.count) })

            let requests = server.requests(for: "/big.raw")
            #expect(requests.count == 2)
            #expect(requests[0].header("Range") == nil)
            #expect(requests[1].header("Range") == "bytes=\(cut)-")
            #expect(requests[1].header("If-Range") == etag)
            #expect(downloader.resumableData.count == 0)
        }
    }

    @Test("Given an unquoted ETag (as some servers send), then it is still used as an entity tag and the download resumes")
    func unquotedEntityTag() async throws {
        try await withServerAndDownloader { server, downloader in
            server.route("/u.raw", handler: interruptedOnce(after: 6_000, HTTPTestServer.ranges(image, entityTag: "abc123", lastModified: nil)))
            let url = server.url("/u.raw")
            _ = await download(downloader, url)
            let second = await download(downloader, url)
            #expect((try? second.result.get().data) == image)
            #expect(second.token.metrics.resumedBytes == 6_000)
            #expect(server.requests(for: "/u.raw").last?.header("If-Range") == "abc123")
        }
    }

    @Test("Given no ETag and a Last-Modified older than the Date by a minute or more, then the date is the If-Range validator")
    func lastModifiedValidator() async throws {
        try await withServerAndDownloader { server, downloader in
            server.route("/lm.raw", handler: interruptedOnce(after: 5_000, HTTPTestServer.ranges(image, entityTag: nil, lastModified: lastModified, date: serverDate)))
            let url = server.url("/lm.raw")
            _ = await download(downloader, url)
            let loaded = try await download(downloader, url).result.get()
            #expect(loaded.data == image)
            #expect(server.requests(for: "/lm.raw").last?.header("If-Range") == lastModified)
        }
    }

    @Test(
        "Given a cut response that cannot be resumed, then the next request asks for the whole body",
        arguments: [
            ("no Accept-Ranges", false, "\"v1\"" as String?, nil as String?, nil as String?),
            ("weak ETag only", true, "W/\"v1\"", nil, nil),
            ("weak ETag beside a Last-Modified (no date may be sent)", true, "W/\"v1\"", "Tue, 01 Jan 2019 00:00:00 GMT", "Tue, 01 Jan 2019 00:05:00 GMT"),
            ("Last-Modified within a minute of the Date (a weak validator)", true, nil, "Tue, 01 Jan 2019 00:00:00 GMT", "Tue, 01 Jan 2019 00:00:30 GMT"),
            ("Last-Modified without a Date", true, nil, "Tue, 01 Jan 2019 00:00:00 GMT", nil),
            ("no validator", true, nil, nil, nil),
        ])
    func notResumable(_ name: String, acceptRanges: Bool, entityTag: String?, lastModified: String?, date: String?) async throws {
        try await withServerAndDownloader { server, downloader in
            let ranged = HTTPTestServer.ranges(image, entityTag: entityTag, lastModified: lastModified, date: date)
            server.route("/n.raw", handler: interruptedOnce(after: 5_000) { request in
                ranged(request).with { response in
                    if !acceptRanges { response.headers.removeAll { $0.name == "Accept-Ranges" } }
                }
            })
            let url = server.url("/n.raw")
            let first = await download(downloader, url)
            #expect(first.result.transportKind == .connectionLost, "\(first.result)")
            #expect(downloader.resumableData.count == 0)
            let second = await download(downloader, url)
            #expect((try? second.result.get().data) == image)
            #expect(server.requests(for: "/n.raw").last?.header("Range") == nil)
            #expect(second.token.metrics.resumedBytes == 0)
        }
    }

    @Test("Given the image changed since the cut (If-Range no longer matches), then the server's whole new body is used")
    func changedRepresentation() async throws {
        try await withServerAndDownloader { server, downloader in
            let newer = RawTestCoder.encode(width: 64, height: 32, seed: 9)
            let version = Mutex(0)
            let old = HTTPTestServer.ranges(image, entityTag: etag, lastModified: nil)
            let new = HTTPTestServer.ranges(newer, entityTag: "\"v2\"", lastModified: nil)
            server.route("/c.raw", handler: interruptedOnce(after: 8_000) { request in
                version.withLock { $0 } == 0 ? old(request) : new(request)
            })
            let url = server.url("/c.raw")
            _ = await download(downloader, url)
            version.withLock { $0 = 1 }
            let second = await download(downloader, url)
            let loaded = try second.result.get()
            #expect(loaded.data == newer)
            #expect(loaded.image?.width == 64)
            #expect(second.token.metrics.resumedBytes == 0)
            #expect(server.requests(for: "/c.raw").last?.header("If-Range") == etag)
        }
    }

    @Test(
        "Given a server that ignores If-Range and sends a range of a changed image (another ETag or another total size), then the parts are not joined: the request is sent again whole",
        arguments: ["another ETag", "another size", "no validator on the 206"])
    func rangeOfAnotherRepresentation(_ change: String) async throws {
        try await withServerAndDownloader { server, downloader in
            let newer = change == "another size" ? RawTestCoder.encode(width: 64, height: 48, seed: 8) : RawTestCoder.encode(width: 128, height: 96, seed: 8)
            let newTag = change == "another size" ? etag : "\"v2\""
            let version = Mutex(0)
            let old = HTTPTestServer.ranges(image, entityTag: etag, lastModified: nil)
            let new = HTTPTestServer.ranges(newer, entityTag: newTag, lastModified: nil)
            server.route("/x.raw", handler: interruptedOnce(after: 7_000) { request in
                guard version.withLock({ $0 }) == 1 else { return old(request) }
                // Ignore If-Range, as a server may: serve the asked range of whatever is there now.
                var unconditional = request
                unconditional.headers.removeAll { $0.name.lowercased() == "if-range" }
                let response = new(unconditional)
                guard change == "no validator on the 206", response.status == 206 else { return response }
                return response.with { $0.headers.removeAll { $0.name == "ETag" } }
            })
            let url = server.url("/x.raw")
            _ = await download(downloader, url)
            version.withLock { $0 = 1 }
            let second = await download(downloader, url)
            #expect((try? second.result.get().data) == newer)
            #expect(second.token.metrics.resumedBytes == 0)
            #expect(server.requests(for: "/x.raw").map { $0.header("Range") } == [nil, "bytes=7000-", nil])
        }
    }

    @Test(
        "Given a resumed request answered with 416 or with a 206 for another range, then it is sent once more without a range and succeeds",
        arguments: ["416", "wrong range"])
    func rejectedContinuationRestarts(_ answer: String) async throws {
        try await withServerAndDownloader { server, downloader in
            let cut = 6_000
            let ranged = HTTPTestServer.ranges(image, entityTag: etag, lastModified: nil)
            server.route("/r.raw", handler: interruptedOnce(after: cut) { request in
                guard request.header("Range") != nil else { return ranged(request) }
                if answer == "416" {
                    return HTTPTestServer.Response(status: 416, headers: [("Content-Range", "bytes */\(image.count)")])
                }
                var shifted = request
                shifted.headers = shifted.headers.map { $0.name == "Range" ? ($0.name, "bytes=\(cut - 100)-") : $0 }
                return ranged(shifted)
            })
            let url = server.url("/r.raw")
            _ = await download(downloader, url)
            let second = await download(downloader, url)
            #expect((try? second.result.get().data) == image)
            #expect(second.token.metrics.resumedBytes == 0)
            let requests = server.requests(for: "/r.raw")
            #expect(requests.map { $0.header("Range") } == [nil, "bytes=\(cut)-", nil])
        }
    }

    @Test("Given a download cancelled part-way, when the URL is requested again, then it continues from the bytes received")
    func resumesAfterCancellation() async throws {
        try await withServerAndDownloader { server, downloader in
            let large = RawTestCoder.encode(width: 256, height: 256, seed: 2)
            let ranged = HTTPTestServer.ranges(large, entityTag: etag, lastModified: nil)
            // The first response stops after 64 KiB at a gate that never opens: only the
            // cancel ends it. Later responses are whole.
            let held = Mutex(true)
            server.route("/slow.raw") { request in
                let response = ranged(request)
                let first = held.withLock { first in
                    defer { first = false }
                    return first
                }
                return first ? response.with { $0.chunkSize = 16 * 1024; $0.bodyPause = .init(afterBytes: 64 * 1024, gate: HTTPTestServer.Gate()) } : response
            }
            let url = server.url("/slow.raw")
            let received = Mutex<Int64>(0)
            let ended = Recorder<Result<ImageLoaderResult, WebImageError>>()
            let token = downloader.downloadImage(
                with: url, progress: { bytes, _, _ in received.withLock { $0 = bytes } }) { ended.append($0) }
            #expect(await eventually { received.withLock { $0 } >= 32 * 1024 })
            token.cancel()
            #expect(await eventually { ended.count == 1 })
            #expect(ended.values.first?.code == "cancelled")
            // The network request is cancelled when its last caller leaves; the bytes stay.
            #expect(await eventually { downloader.resumableData.count == 1 })
            let kept = try #require(downloader.resumableData.take(for: url))
            #expect(kept.data == large.prefix(kept.data.count))
            #expect(kept.validator == etag)
            downloader.resumableData.store(kept, for: url)

            let second = await download(downloader, url)
            #expect((try? second.result.get().data) == large)
            #expect(second.token.metrics.resumedBytes == Int64(kept.data.count))
            #expect(server.requests(for: "/slow.raw").last?.header("Range") == "bytes=\(kept.data.count)-")
        }
    }

    @Test("Given a revalidation (validators in the context), then a kept partial body is not used, and stays for a plain download")
    func revalidationDoesNotResume() async throws {
        try await withServerAndDownloader { server, downloader in
            server.route("/v.raw", handler: interruptedOnce(after: 4_000, HTTPTestServer.ranges(image, entityTag: etag, lastModified: nil)))
            let url = server.url("/v.raw")
            _ = await download(downloader, url)
            var context = WebImageContext()
            context.cachedResponseValidators = HTTPCacheValidators(entityTag: "\"old\"")
            let revalidated = await download(downloader, url, context: context)
            #expect((try? revalidated.result.get().data) == image)
            #expect(server.requests(for: "/v.raw").last?.header("Range") == nil)
            #expect(downloader.resumableData.count == 1)
        }
    }

    @Test("Given resumableDataCapacity 0, then nothing is kept and the next request is whole")
    func capacityZeroDisables() async throws {
        var configuration = testDownloaderConfiguration()
        configuration.resumableDataCapacity = 0
        try await withServerAndDownloader(configuration: configuration) { server, downloader in
            server.route("/z.raw", handler: interruptedOnce(after: 4_000, HTTPTestServer.ranges(image, entityTag: etag, lastModified: nil)))
            let url = server.url("/z.raw")
            _ = await download(downloader, url)
            #expect((try? await download(downloader, url).result.get().data) == image)
            #expect(server.requests(for: "/z.raw").last?.header("Range") == nil)
        }
    }
}

@Suite("Resumable data store and Content-Range (X-3)")
struct ResumableDataStoreTests {
    private func entry(_ count: Int, _ fill: UInt8 = 1) -> ResumableDataStore.Entry {
        ResumableDataStore.Entry(data: Data(repeating: fill, count: count), validator: "\"\(fill)\"", validatorIsEntityTag: true, totalSize: Int64(count * 2))
    }

    private func url(_ index: Int) -> URL { URL(string: "https://example.invalid/\(index).jpg")! }

    @Test("Given entries beyond the byte capacity, then the oldest go first; an entry larger than the capacity is not kept")
    func evictsOldestBeyondCapacity() {
        let store = ResumableDataStore(capacity: 1_000)
        store.store(entry(400, 1), for: url(1))
        store.store(entry(400, 2), for: url(2))
        store.store(entry(400, 3), for: url(3))
        #expect(store.count == 2 && store.totalBytes == 800)
        #expect(store.take(for: url(1)) == nil)
        #expect(store.take(for: url(3)) == entry(400, 3))
        #expect(store.take(for: url(3)) == nil)
        store.store(entry(1_001), for: url(4))
        #expect(store.take(for: url(4)) == nil)
        #expect(store.totalBytes == 400)
    }

    @Test("Given more than the entry limit, then the oldest go first; storing a URL again replaces its entry")
    func entryLimitAndReplacement() {
        let store = ResumableDataStore(capacity: 1 << 20)
        for index in 0..<(ResumableDataStore.maximumEntries + 3) { store.store(entry(10), for: url(index)) }
        #expect(store.count == ResumableDataStore.maximumEntries)
        #expect(store.take(for: url(0)) == nil && store.take(for: url(2)) == nil)
        store.store(entry(20, 9), for: url(10))
        #expect(store.take(for: url(10)) == entry(20, 9))
        #expect(store.take(for: url(10)) == nil)
    }

    @Test(
        "Given Content-Range values, then only well-formed byte ranges parse",
        arguments: [
            ("bytes 100-999/1000", ContentRange?.some(ContentRange("bytes 100-999/1000")!)),
            ("bytes 0-0/1", ContentRange("bytes 0-0/1")),
            ("bytes */1000", nil), ("bytes 100-999/*", nil), ("items 0-1/2", nil), ("bytes 5-4/10", nil),
            ("bytes 0-10/10", nil), ("bytes -1-5/10", nil), ("bytes 1-5/10 ", nil), ("bytes +1-5/10", nil),
            ("bytes 0-1/99999999999999999999", nil), ("bytes 0-/10", nil), ("", nil),
        ])
    func contentRangeParsing(_ value: String, _ expected: ContentRange?) {
        #expect(ContentRange(value) == expected)
    }

    @Test("Given a well-formed range, then its bounds and length are read")
    func contentRangeBounds() throws {
        let range = try #require(ContentRange("bytes 100-999/1000"))
        #expect(range.first == 100 && range.last == 999 && range.total == 1000 && range.length == 900)
    }
}
