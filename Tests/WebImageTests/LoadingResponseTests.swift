import Foundation
import Testing
import WebImage
import WebImageTesting

@Suite("Downloader response checks and errors (D-6)")
struct LoadingResponseTests {
    let image = RawTestCoder.encode(width: 4, height: 4)

    @Test("Given a 404, then the load fails with invalidDownloadStatusCode(404) and observers see failed")
    func statusCode() async throws {
        try await withServerAndDownloader { server, downloader in
            server.route("/missing.raw", HTTPTestServer.Response(status: 404, body: Data("nope".utf8)))
            let failed = Recorder<String>()
            downloader.addObserver { event in if case .failed(_, let error, _) = event { failed.append(error.code) } }
            let result = await loadFinal(downloader, server.url("/missing.raw"))
            guard case .failure(.invalidDownloadStatusCode(404)) = result else {
                Issue.record("expected invalidDownloadStatusCode(404), got \(result)")
                return
            }
            #expect(failed.values == ["invalidDownloadStatusCode"])
        }
    }

    @Test("Given acceptable content types, when the server sends text/html, then invalidDownloadContentType")
    func contentType() async throws {
        var configuration = testDownloaderConfiguration()
        configuration.acceptableContentTypes = ["image/png", "application/octet-stream"]
        try await withServerAndDownloader(configuration: configuration) { server, downloader in
            server.route("/page", .ok(image, contentType: "text/html; charset=utf-8"))
            server.route("/ok", .ok(image, contentType: "Application/Octet-Stream"))
            let rejected = await loadFinal(downloader, server.url("/page"))
            guard case .failure(.invalidDownloadContentType(let type)) = rejected else {
                Issue.record("expected invalidDownloadContentType, got \(rejected)")
                return
            }
            #expect(type == "text/html; charset=utf-8")
            #expect(await loadFinal(downloader, server.url("/ok")).code == "success")
        }
    }

    @Test("Given an empty 200 body, then badImageData")
    func emptyBody() async throws {
        try await withServerAndDownloader { server, downloader in
            server.route("/empty", .ok(Data()))
            #expect(await loadFinal(downloader, server.url("/empty")).code == "badImageData")
        }
    }

    @Test("Given a response modifier returning nil, then invalidDownloadResponse; changing the status is checked")
    func responseModifier() async throws {
        try await withServerAndDownloader { server, downloader in
            server.route("/img", .ok(image))
            var reject = WebImageContext()
            reject.responseModifier = { _ in nil }
            #expect(await loadFinal(downloader, server.url("/img"), context: reject).code == "invalidDownloadResponse")
            var alter = WebImageContext()
            alter.responseModifier = { response in
                var changed = response
                changed.statusCode = 503
                return changed
            }
            guard case .failure(.invalidDownloadStatusCode(503)) = await loadFinal(downloader, server.url("/img"), context: alter) else {
                Issue.record("expected invalidDownloadStatusCode(503)")
                return
            }
        }
    }

    @Test("Given a decryptor, then it transforms the bytes before decoding")
    func decryptor() async throws {
        try await withServerAndDownloader { server, downloader in
            server.route("/secret", .ok(Data(image.map { $0 ^ 0x5A })))
            var context = WebImageContext()
            context.decryptor = { data, _ in Data(data.map { $0 ^ 0x5A }) }
            let result = await loadFinal(downloader, server.url("/secret"), context: context)
            #expect((try? result.get().image?.width) == 4)
            #expect((try? result.get().data) == image)
            #expect(await loadFinal(downloader, server.url("/secret")).code == "badImageData")
        }
    }

    @Test("Given a maximum response size, then a larger Content-Length and a larger chunked body both fail with responseTooLarge")
    func responseTooLarge() async throws {
        var configuration = testDownloaderConfiguration()
        configuration.maximumResponseSize = 1_000
        try await withServerAndDownloader(configuration: configuration) { server, downloader in
            server.route("/huge", HTTPTestServer.Response.ok(Data(repeating: 1, count: 10)).with { $0.declaredLength = 50_000_000_000 })
            server.route("/stream", HTTPTestServer.Response.ok(Data(repeating: 1, count: 5_000)).with {
                $0.chunked = true
                $0.chunkSize = 100
            })
            guard case .failure(.responseTooLarge(1_000)) = await loadFinal(downloader, server.url("/huge")) else {
                Issue.record("expected responseTooLarge for Content-Length")
                return
            }
            guard case .failure(.responseTooLarge(1_000)) = await loadFinal(downloader, server.url("/stream")) else {
                Issue.record("expected responseTooLarge while streaming")
                return
            }
        }
    }

    @Test("Given a short timeout and a server that holds its head back, then a transient timedOut error naming the idle timeout")
    func timeout() async throws {
        var configuration = testDownloaderConfiguration()
        configuration.downloadTimeout = 0.2
        try await withServerAndDownloader(configuration: configuration) { server, downloader in
            // Held until the client gives up (a gate that never opens), however slow the machine.
            server.route("/late", HTTPTestServer.Response.ok(image).with { $0.gate = HTTPTestServer.Gate() })
            let result = await loadFinal(downloader, server.url("/late"))
            if case .failure(let error) = result {
                #expect(error.deadline == .idle(seconds: 0.2), "got \(error)")
                #expect(!downloader.shouldBlockFailedURL(server.url("/late"), error: error))
                #expect(!FailedURLList.shouldBlock(error))
            } else {
                Issue.record("the late response succeeded")
            }
        }
    }

    @Test("Given a redirect, then the image loads and the metrics count one redirect")
    func redirect() async throws {
        try await withServerAndDownloader { server, downloader in
            server.route("/from", .redirect(to: "/to"))
            server.route("/to", .ok(image))
            let result = Recorder<Result<ImageLoaderResult, WebImageError>>()
            let token = downloader.downloadImage(with: server.url("/from")) { result.append($0) }
            #expect(await eventually { result.count == 1 })
            #expect((try? result.values.first?.get().image?.width) == 4)
            #expect(token.metrics.redirectCount == 1)
            #expect(token.metrics.receivedBytes == Int64(image.count))
            #expect(token.response?.url?.path == "/to")
        }
    }

    @Test("Given a redirect loop or a chain longer than the limit, then tooManyRedirects (blocking the URL)")
    func redirectLoops() async throws {
        var configuration = testDownloaderConfiguration()
        configuration.maximumRedirects = 3
        try await withServerAndDownloader(configuration: configuration) { server, downloader in
            server.route("/a", .redirect(to: "/b"))
            server.route("/b", .redirect(to: "/a"))
            for index in 0..<6 { server.route("/r\(index)", .redirect(to: "/r\(index + 1)")) }
            server.route("/r6", .ok(image))
            let loop = await loadFinal(downloader, server.url("/a"))
            #expect(loop.transportKind == .tooManyRedirects)
            let chain = await loadFinal(downloader, server.url("/r0"))
            #expect(chain.transportKind == .tooManyRedirects)
            #expect(server.requestCount("/r4") == 0)
            if case .failure(let error) = chain { #expect(downloader.shouldBlockFailedURL(server.url("/r0"), error: error)) }
        }
    }

    @Test("Given a redirect to a Location without a host (//), then invalidDownloadResponse (the server's fault), not invalidURL")
    func redirectToInvalidURL() async throws {
        try await withServerAndDownloader { server, downloader in
            server.route("/bad", .redirect(to: "//"))
            let result = await loadFinal(downloader, server.url("/bad"))
            #expect(result.code == WebImageError.invalidDownloadResponse(reason: "").code)
            #expect(server.requestCount("/bad") == 1)
        }
    }

    @Test("Given a connection closed without an answer, then connectionLost")
    func closedConnection() async throws {
        try await withServerAndDownloader { server, downloader in
            server.route("/close", .close)
            let result = await loadFinal(downloader, server.url("/close"))
            #expect(result.transportKind == .connectionLost)
        }
    }

    @Test("Given a connection reset before the answer or in the middle of the body, then connectionLost and no image")
    func resets() async throws {
        try await withServerAndDownloader { server, downloader in
            let full = RawTestCoder.encode(width: 32, height: 32)
            server.route("/rst", .reset)
            server.route("/rst-body", HTTPTestServer.Response.ok(full.prefix(1_500)).with {
                $0.declaredLength = full.count
                $0.reset = true
            })
            let rst = await loadFinal(downloader, server.url("/rst"))
            #expect(rst.transportKind == .connectionLost)
            #expect(await loadFinal(downloader, server.url("/rst-body")).transportKind == .connectionLost)
            // The pool recovers: a normal request afterwards succeeds.
            server.route("/fine", .ok(full))
            #expect(await loadFinal(downloader, server.url("/fine")).code == "success")
        }
    }

    @Test("Given a body cut short of its Content-Length, then connectionLost and no image is reported")
    func truncatedBody() async throws {
        try await withServerAndDownloader { server, downloader in
            let full = RawTestCoder.encode(width: 32, height: 32)
            server.route("/cut", HTTPTestServer.Response.ok(full.prefix(2_000)).with {
                $0.declaredLength = full.count
                $0.chunkSize = 500
            })
            let results = Recorder<Result<ImageLoaderResult, WebImageError>>()
            _ = downloader.downloadImage(with: server.url("/cut"), options: .progressiveLoad) { results.append($0) }
            #expect(await eventually { results.values.contains { (try? $0.get().finished) != false } })
            let final = try #require(results.values.last)
            #expect(final.transportKind == .connectionLost)
            #expect(!results.values.contains { (try? $0.get().finished) == true })
        }
    }

    /// A port that refuses connections for the whole test (bound, never listening).
    static func refusingPort() throws -> RefusingPort {
        try #require(RefusingPort())
    }

    @Test("Given retriesFailedConnections on, when nothing listens, then cannotConnectToHost once the connect timeout ran out")
    func refusedWithRetry() async throws {
        let port = try Self.refusingPort()
        let url = port.url("/x")
        // AsyncHTTPClient retries refused connections until the connect timeout, then reports
        // the last connection error.
        var configuration = testDownloaderConfiguration()
        configuration.downloadTimeout = 0.5
        configuration.retriesFailedConnections = true
        let downloader = ImageDownloader(configuration: configuration)
        let result = await loadFinal(downloader, url)
        try await downloader.shutdown()
        #expect(result.transportKind == .cannotConnectToHost)
    }

    @Test("Given the default configuration and a long timeout, when nothing listens, then cannotConnectToHost arrives without waiting for the timeout, with the system's message")
    func refusedWithoutRetry() async throws {
        let port = try Self.refusingPort()
        let url = port.url("/x")
        var configuration = testDownloaderConfiguration()
        configuration.downloadTimeout = 600  // with retries, the failure would take this long
        #expect(!configuration.retriesFailedConnections)
        let downloader = ImageDownloader(configuration: configuration)
        let results = Recorder<Result<ImageLoaderResult, WebImageError>>()
        _ = downloader.downloadImage(with: url) { results.append($0) }
        #expect(await eventually(within: 60) { results.count == 1 }, "a hang guard: 60 s, a tenth of the timeout")
        try await downloader.shutdown()
        #expect(results.values.first?.transportKind == .cannotConnectToHost)
        if case .failure(.transport(let error)) = results.values.first {
            #expect(error.message.contains("Connection refused") || error.message.contains("cannot connect"))
        }
    }

    @Test("Given the default configuration, when a host refuses every connection, then its downloads free their slots and a download queued behind them completes")
    func refusedHostFreesSlots() async throws {
        let port = try Self.refusingPort()
        let dead = port.url("/x")
        var configuration = testDownloaderConfiguration()
        configuration.downloadTimeout = 600
        configuration.maximumDownloadDuration = 600
        configuration.maxConcurrentDownloads = 2
        try await withServerAndDownloader(configuration: configuration) { server, downloader in
            server.route("/alive.raw", .ok(RawTestCoder.encode(width: 3, height: 2)))
            let results = Recorder<(String, Result<ImageLoaderResult, WebImageError>)>()
            for index in 0..<4 {
                let url = try #require(URL(string: dead.absoluteString + "?\(index)"))
                _ = downloader.downloadImage(with: url) { results.append(("dead", $0)) }
            }
            _ = downloader.downloadImage(with: server.url("/alive.raw")) { results.append(("alive", $0)) }
            #expect(await eventually(within: 60) { results.count == 5 }, "a hang guard: a tenth of the timeout")
            #expect(results.values.filter { $0.0 == "dead" }.allSatisfy { $0.1.transportKind == .cannotConnectToHost })
            #expect(results.values.first { $0.0 == "alive" }.map { (try? $0.1.get().image?.width) == 3 } == true)
        }
    }

    @Test("Given the default failed-URL rule, then cancellation, 304 and transient errors never block; others do")
    func blockRule() {
        let downloader = ImageDownloader.shared
        let url = URL(string: "https://example.invalid/a.png")!
        #expect(!downloader.shouldBlockFailedURL(url, error: .cancelled))
        #expect(!downloader.shouldBlockFailedURL(url, error: .cacheNotModified))
        #expect(!downloader.shouldBlockFailedURL(url, error: .transport(TransportError(.connectionLost, "x"))))
        #expect(downloader.shouldBlockFailedURL(url, error: .invalidDownloadStatusCode(404)))
        #expect(downloader.shouldBlockFailedURL(url, error: .transport(TransportError(.tls, "x"))))
    }
}
