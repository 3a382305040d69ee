import Foundation
import Synchronization
import Testing
@testable import WebImage
import WebImageCore
import WebImageTesting

/// A downloader-wide modifier that adds `X-Signed: <n>` (n counts its runs) and records the
/// requests it saw.
private final class CountingModifier: DownloaderRequestModifier {
    let seen = Mutex<[ImageDownloadRequest]>([])

    func modify(_ request: ImageDownloadRequest) throws -> ImageDownloadRequest {
        let count = seen.withLock { seen in
            seen.append(request)
            return seen.count
        }
        var signed = request
        signed.setValue("\(count)", forHeader: "X-Signed")
        return signed
    }

    var requests: [ImageDownloadRequest] { seen.withLock { $0 } }
}

/// A modifier that describes refused responses by their body.
private struct DescribingModifier: DownloaderRequestModifier {
    var describesRefusals: Bool { true }

    func modify(_ request: ImageDownloadRequest) throws -> ImageDownloadRequest {
        var signed = request
        signed.setValue("yes", forHeader: "X-Signed")
        return signed
    }

    func refusal(_ response: ImageResponseInfo, body: Data) -> WebImageError? {
        .invalidDownloadResponse(reason: "refused \(response.statusCode): \(String(decoding: body, as: UTF8.self))")
    }
}

@Suite("Downloader request modifier: where it runs, and redirects (D-5)")
struct LoadingDownloaderModifierTests {
    let image = RawTestCoder.encode(width: 4, height: 4)

    private func configuration(_ modifier: any DownloaderRequestModifier) -> ImageDownloaderConfiguration {
        var configuration = testDownloaderConfiguration()
        configuration.requestModifier = modifier
        return configuration
    }

    @Test("Given a downloader modifier and a per-load modifier, then both headers are sent and the downloader's runs last, seeing the per-load header")
    func runsAfterPerLoadModifier() async throws {
        let modifier = CountingModifier()
        try await withServerAndDownloader(configuration: configuration(modifier)) { server, downloader in
            server.route("/a", .ok(image))
            var context = WebImageContext()
            context.requestModifier = { request in
                var changed = request
                changed.setValue("load", forHeader: "X-Load")
                return changed
            }
            #expect(await loadFinal(downloader, server.url("/a"), context: context).code == "success")
            let request = try #require(server.requests(for: "/a").first)
            #expect(request.header("X-Signed") == "1")
            #expect(request.header("X-Load") == "load")
            #expect(modifier.requests.first?.value(forHeader: "X-Load") == "load")
        }
    }

    @Test("Given a revalidation, then the modifier runs again and sees If-None-Match; a 304 is cacheNotModified")
    func runsOnRevalidation() async throws {
        let modifier = CountingModifier()
        try await withServerAndDownloader(configuration: configuration(modifier)) { server, downloader in
            server.route("/r", handler: HTTPTestServer.conditional(image, entityTag: "\"e1\"", lastModified: nil))
            #expect(await loadFinal(downloader, server.url("/r")).code == "success")
            var context = WebImageContext()
            context.cachedResponseValidators = HTTPCacheValidators(entityTag: "\"e1\"")
            #expect(await loadFinal(downloader, server.url("/r"), context: context).code == "cacheNotModified")
            let requests = server.requests(for: "/r")
            #expect(requests.count == 2)
            #expect(requests.map { $0.header("X-Signed") } == ["1", "2"])
            #expect(modifier.requests.last?.value(forHeader: "If-None-Match") == "\"e1\"")
        }
    }

    @Test("Given a download cut short, then the resumed request runs the modifier again with Range already set")
    func runsOnResumedRange() async throws {
        let modifier = CountingModifier()
        let big = RawTestCoder.encode(width: 128, height: 96, seed: 5)
        try await withServerAndDownloader(configuration: configuration(modifier)) { server, downloader in
            let served = Mutex(0)
            let ranges = HTTPTestServer.ranges(big, entityTag: "\"v1\"", lastModified: nil)
            server.route("/big", handler: { request in
                var response = ranges(request)
                let first = served.withLock { count in
                    defer { count += 1 }
                    return count == 0
                }
                if first {
                    response.declaredLength = response.body.count
                    response.body = response.body.prefix(20_000)
                }
                return response
            })
            _ = await loadFinal(downloader, server.url("/big"))
            let second = await loadFinal(downloader, server.url("/big"))
            let data = try second.get().data
            #expect(data == big)
            let requests = server.requests(for: "/big")
            #expect(requests.count == 2)
            #expect(requests.last?.header("Range") == "bytes=20000-")
            #expect(requests.last?.header("X-Signed") == "2")
            #expect(modifier.requests.last?.value(forHeader: "Range") == "bytes=20000-")
        }
    }

    @Test("Given a redirect to the same origin, then it is followed with the modifier's header, and the modifier does not run for the hop")
    func sameOriginRedirectKeepsHeaders() async throws {
        let modifier = CountingModifier()
        try await withServerAndDownloader(configuration: configuration(modifier)) { server, downloader in
            server.route("/from", .redirect(to: "/to"))
            server.route("/to", .ok(image))
            #expect(await loadFinal(downloader, server.url("/from")).code == "success")
            #expect(server.requests(for: "/to").first?.header("X-Signed") == "1")
            #expect(modifier.requests.count == 1)
        }
    }

    @Test("Given a redirect to another origin, then a request the modifier changed fails and the other origin gets no request; without a modifier it is followed")
    func crossOriginRedirectRefused() async throws {
        let other = HTTPTestServer()
        try await other.start()
        other.route("/to", .ok(image))
        do {
            try await withServerAndDownloader(configuration: configuration(CountingModifier())) { server, downloader in
                server.route("/from", .redirect(to: other.url("/to").absoluteString))
                let result = await loadFinal(downloader, server.url("/from"))
                #expect(result.code == "invalidDownloadResponse")
                if case .failure(.invalidDownloadResponse(let reason)) = result {
                    #expect(reason.contains("another host"))
                }
                #expect(other.requestCount("/to") == 0)
            }
            try await withServerAndDownloader { server, downloader in
                server.route("/from", .redirect(to: other.url("/to").absoluteString))
                #expect(await loadFinal(downloader, server.url("/from")).code == "success")
                #expect(other.requestCount("/to") == 1)
            }
        } catch {
            await other.shutdown()
            throw error
        }
        await other.shutdown()
    }

    @Test("Given a modifier that describes refusals, then a 403's body becomes its error; other modifiers keep invalidDownloadStatusCode")
    func refusalDescribed() async throws {
        let body = Data("<Error><Code>AccessDenied</Code></Error>".utf8)
        try await withServerAndDownloader(configuration: configuration(DescribingModifier())) { server, downloader in
            server.route("/denied", HTTPTestServer.Response.status(403).with { $0.body = body })
            let result = await loadFinal(downloader, server.url("/denied"))
            guard case .failure(.invalidDownloadResponse(let reason)) = result else {
                Issue.record("expected invalidDownloadResponse, got \(result)")
                return
            }
            #expect(reason == "refused 403: <Error><Code>AccessDenied</Code></Error>")
        }
        try await withServerAndDownloader(configuration: configuration(CountingModifier())) { server, downloader in
            server.route("/denied", HTTPTestServer.Response.status(403).with { $0.body = body })
            #expect(await loadFinal(downloader, server.url("/denied")).code == "invalidDownloadStatusCode")
        }
    }

    @Test("Given a closure modifier returning nil, then the download fails with invalidDownloadOperation and nothing is sent")
    func closureRefuses() async throws {
        try await withServerAndDownloader(configuration: configuration(ClosureRequestModifier { _ in nil })) { server, downloader in
            server.route("/n", .ok(image))
            #expect(await loadFinal(downloader, server.url("/n")).code == "invalidDownloadOperation")
            #expect(server.requestCount("/n") == 0)
        }
    }
}
