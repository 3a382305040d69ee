import Foundation
import Testing
import WebImage
import WebImageTesting

@Suite("Downloader requests, progress, progressive and revalidation (D-5, D-7, D-8, D-10)")
struct LoadingRequestTests {
    let image = RawTestCoder.encode(width: 4, height: 4)

    @Test("Given the default configuration, then Accept and User-Agent are sent; credentials add basic auth; removed headers are not sent")
    func defaultHeaders() async throws {
        var configuration = testDownloaderConfiguration()
        configuration.credentials = .init(user: "ann", password: "secret")
        configuration.setValue("1", forHeader: "X-Extra")
        configuration.setValue(nil, forHeader: "X-Extra")
        configuration.setValue("yes", forHeader: "X-Kept")
        try await withServerAndDownloader(configuration: configuration) { server, downloader in
            server.route("/h", .ok(image))
            #expect(await loadFinal(downloader, server.url("/h")).code == "success")
            let request = try #require(server.requests(for: "/h").first)
            #expect(request.header("Accept") == "image/*,*/*;q=0.8")
            #expect(request.header("User-Agent") == ImageDownloaderConfiguration.defaultUserAgent)
            #expect(request.header("Authorization") == "Basic " + Data("ann:secret".utf8).base64EncodedString())
            #expect(request.header("X-Extra") == nil)
            #expect(request.header("X-Kept") == "yes")
        }
    }

    @Test("Given a request modifier, then its header is sent; returning nil fails with invalidDownloadOperation without a request")
    func requestModifier() async throws {
        try await withServerAndDownloader { server, downloader in
            server.route("/m", .ok(image))
            var add = WebImageContext()
            add.requestModifier = { request in
                var changed = request
                changed.setValue("token-1", forHeader: "X-Token")
                return changed
            }
            #expect(await loadFinal(downloader, server.url("/m"), context: add).code == "success")
            #expect(server.requests(for: "/m").first?.header("X-Token") == "token-1")
            var refuse = WebImageContext()
            refuse.requestModifier = { _ in nil }
            #expect(await loadFinal(downloader, server.url("/m"), context: refuse).code == "invalidDownloadOperation")
            #expect(server.requestCount("/m") == 1)
        }
    }

    @Test("Given cookies set by the server, then they are sent back only with handleCookies")
    func cookies() async throws {
        try await withServerAndDownloader { server, downloader in
            server.route("/set", HTTPTestServer.Response.ok(image).with { $0.headers.append(("Set-Cookie", "session=abc; Path=/; HttpOnly")) })
            server.route("/use", .ok(image))
            #expect(await loadFinal(downloader, server.url("/set"), options: .handleCookies).code == "success")
            #expect(await loadFinal(downloader, server.url("/use")).code == "success")
            #expect(await loadFinal(downloader, server.url("/use"), options: .handleCookies).code == "success")
            let requests = server.requests(for: "/use")
            #expect(requests.count == 2)
            #expect(requests.first?.header("Cookie") == nil)
            #expect(requests.last?.header("Cookie") == "session=abc")
        }
    }

    @Test("Given a chunked body, then progress is monotonic, throttled, with the expected size and a final 100%")
    func progress() async throws {
        var configuration = testDownloaderConfiguration()
        configuration.minimumProgressInterval = 0.1
        try await withServerAndDownloader(configuration: configuration) { server, downloader in
            let body = RawTestCoder.encode(width: 64, height: 64)
            server.route("/p", HTTPTestServer.Response.ok(body).with {
                $0.chunkSize = 512
                $0.chunkDelay = .milliseconds(1)
            })
            let reports = Recorder<(Int64, Int64?)>()
            let done = Recorder<String>()
            _ = downloader.requestImage(
                with: server.url("/p"), options: [], context: WebImageContext(),
                progress: { received, expected, _ in reports.append((received, expected)) },
                completed: { done.append($0.code) })
            #expect(await eventually { done.count == 1 })
            let received = reports.values.map(\.0)
            #expect(done.values == ["success"])
            #expect(received == received.sorted())
            #expect(Set(received).count == received.count)
            #expect(received.last == Int64(body.count))
            #expect(reports.values.allSatisfy { $0.1 == Int64(body.count) })
            #expect(received.count <= 12)
            #expect(received.count >= 2)
        }
    }

    @Test("Given progressiveLoad and a slow body, then partial images arrive before the final image, which is complete")
    func progressive() async throws {
        var configuration = testDownloaderConfiguration()
        configuration.minimumProgressInterval = 0
        try await withServerAndDownloader(configuration: configuration) { server, downloader in
            let body = RawTestCoder.encode(width: 32, height: 32, seed: 9)
            server.route("/pg", HTTPTestServer.Response.ok(body).with {
                $0.chunkSize = 1_024
                $0.chunkDelay = .milliseconds(20)
            })
            let results = Recorder<Result<ImageLoaderResult, WebImageError>>()
            let plain = Recorder<Result<ImageLoaderResult, WebImageError>>()
            _ = downloader.downloadImage(with: server.url("/pg"), options: .progressiveLoad) { results.append($0) }
            _ = downloader.downloadImage(with: server.url("/pg")) { plain.append($0) }
            #expect(await eventually { results.values.contains { (try? $0.get().finished) == true } && plain.count == 1 })
            let values = results.values.compactMap { try? $0.get() }
            #expect(values.count == results.count)
            #expect(values.count >= 2)
            #expect(values.last?.finished == true)
            #expect(values.dropLast().allSatisfy { !$0.finished && $0.image != nil })
            let final = try #require(values.last?.image)
            #expect(final.frames[0].pixels.pixel(x: 31, y: 31) == RGBA(r: 31, g: 31, b: 9, a: 255))
            // A partial image shows only the rows received: its last row is still transparent.
            let firstPartial = try #require(values.first?.image)
            #expect(firstPartial.frames[0].pixels.pixel(x: 0, y: 31).a == 0)
            #expect(plain.count == 1)
            #expect(server.requestCount("/pg") == 1)
        }
    }

    @Test("Given cached validators, when the server answers 304, then cacheNotModified; when it changed, then 200 with new validators")
    func revalidation() async throws {
        try await withServerAndDownloader { server, downloader in
            server.route("/r", handler: HTTPTestServer.conditional(image, entityTag: "\"v2\"", lastModified: "Sat, 21 Nov 2026 10:00:00 GMT"))
            var current = WebImageContext()
            current.cachedResponseValidators = HTTPCacheValidators(entityTag: "\"v2\"")
            let notModified = await loadFinal(downloader, server.url("/r"), context: current)
            #expect(notModified.code == "cacheNotModified")
            #expect(!downloader.shouldBlockFailedURL(server.url("/r"), error: .cacheNotModified))
            #expect(server.requests(for: "/r").last?.header("If-None-Match") == "\"v2\"")

            var stale = WebImageContext()
            stale.cachedResponseValidators = HTTPCacheValidators(entityTag: "\"v1\"", lastModified: "Fri, 20 Nov 2026 10:00:00 GMT")
            let changed = try await loadFinal(downloader, server.url("/r"), context: stale).get()
            #expect(changed.image?.width == 4)
            #expect(changed.response?.validators == HTTPCacheValidators(entityTag: "\"v2\"", lastModified: "Sat, 21 Nov 2026 10:00:00 GMT"))
            let sent = try #require(server.requests(for: "/r").last)
            #expect(sent.header("If-None-Match") == "\"v1\"")
            #expect(sent.header("If-Modified-Since") == "Fri, 20 Nov 2026 10:00:00 GMT")

            var byDate = WebImageContext()
            byDate.cachedResponseValidators = HTTPCacheValidators(lastModified: "Sat, 21 Nov 2026 10:00:00 GMT")
            #expect(await loadFinal(downloader, server.url("/r"), context: byDate).code == "cacheNotModified")
        }
    }

    @Test("Given a download, then observers see started, response and finished with metrics")
    func events() async throws {
        try await withServerAndDownloader { server, downloader in
            server.route("/e", .ok(image, contentType: "image/x-raw"))
            let events = Recorder<String>()
            let observer = downloader.addObserver { event in
                switch event {
                case .started: events.append("started")
                case .receivedResponse(_, let response): events.append("response \(response.statusCode) \(response.mimeType ?? "")")
                case .finished(_, let metrics): events.append("finished \(metrics.receivedBytes) \(metrics.startDate != nil && metrics.endDate != nil)")
                case .failed: events.append("failed")
                }
            }
            #expect(await loadFinal(downloader, server.url("/e")).code == "success")
            #expect(await eventually { events.count == 3 })
            #expect(events.values == ["started", "response 200 image/x-raw", "finished \(image.count) true"])
            downloader.removeObserver(observer)
            #expect(await loadFinal(downloader, server.url("/e")).code == "success")
            #expect(events.count == 3)
        }
    }

    @Test("Given a shut-down downloader, then requests fail with invalidDownloadOperation")
    func afterShutdown() async throws {
        let downloader = ImageDownloader(configuration: testDownloaderConfiguration())
        try await downloader.shutdown()
        let result = await loadFinal(downloader, URL(string: "http://127.0.0.1:9/x")!)
        #expect(result.code == "invalidDownloadOperation")
    }
}

@Suite("Local and chained loaders (D-1)")
struct LoadingLocalTests {
    @Test("Given a file URL, then the local loader decodes it without the network; a missing file fails")
    func fileURL() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-loading-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("a.raw")
        try RawTestCoder.encode(width: 5, height: 2).write(to: file)
        let loader = LocalImageLoader()
        #expect(loader.canRequestImage(for: file))
        #expect(!loader.canRequestImage(for: URL(string: "https://example.com/a.png")!))
        let result = try await loadFinal(loader, file, context: rawContext()).get()
        #expect(result.image?.width == 5)
        #expect(result.response == nil)
        let missing = await loadFinal(loader, directory.appendingPathComponent("none.raw"), context: rawContext())
        #expect(missing.code == "invalidURL")
    }

    @Test("Given data URLs, then base64 and percent-encoded payloads load; garbage fails typed")
    func dataURL() async throws {
        let loader = LocalImageLoader()
        let encoded = RawTestCoder.encode(width: 3, height: 3).base64EncodedString()
        let url = try #require(URL(string: "data:application/octet-stream;base64,\(encoded)"))
        #expect(try await loadFinal(loader, url, context: rawContext()).get().image?.width == 3)
        let text = try #require(URL(string: "data:,hello%20world"))
        #expect(try await loadFinal(loader, text, options: .avoidDecodeImage).get().data == Data("hello world".utf8))
        let garbage = try #require(URL(string: "data:,not-an-image"))
        #expect(await loadFinal(loader, garbage, context: rawContext()).code == "badImageData")
    }

    @Test("Given a loaders manager, then each URL goes to the first loader that handles it; unknown schemes fail with unsupportedURL naming the scheme (R-5)")
    func chain() async throws {
        try await withServerAndDownloader { server, downloader in
            server.route("/c", .ok(RawTestCoder.encode(width: 6, height: 1)))
            let manager = LoadersManager(loaders: [LocalImageLoader(), downloader])
            let data = try #require(URL(string: "data:;base64,\(RawTestCoder.encode(width: 2, height: 2).base64EncodedString())"))
            #expect(try await loadFinal(manager, data, context: rawContext()).get().image?.width == 2)
            #expect(try await loadFinal(manager, server.url("/c"), context: rawContext()).get().image?.width == 6)
            let ftp = try #require(URL(string: "ftp://example.com/a.png"))
            #expect(!manager.canRequestImage(for: ftp))
            #expect(await loadFinal(manager, ftp).code == "unsupportedURL")
            if case .failure(.unsupportedURL(let scheme)) = await loadFinal(manager, ftp) { #expect(scheme == "ftp") }
        }
    }
}
