import Foundation
import Testing
import WebImage
import WebImageTesting

@Suite("Downloader coalescing and cancellation (D-3)")
struct LoadingCoalescingEndToEndTests {
    @Test("Given 1,000 concurrent requests for one URL, then exactly one request reaches the server and every caller gets the image")
    func thousandCallersOneRequest() async throws {
        try await withServerAndDownloader { server, downloader in
            // A gate keeps the download open until all callers joined.
            let gate = HTTPTestServer.Gate()
            server.route("/one.raw", HTTPTestServer.Response.ok(RawTestCoder.encode(width: 8, height: 8)).with { $0.gate = gate })
            let url = server.url("/one.raw")
            let results = Recorder<Result<ImageLoaderResult, WebImageError>>()
            let started = Recorder<Int>()
            downloader.addObserver { event in if case .started = event { started.append(1) } }
            let tokens = (0..<1_000).map { _ in
                downloader.downloadImage(with: url) { results.append($0) }
            }
            gate.open()
            #expect(await eventually { results.count == 1_000 })
            #expect(server.requestCount("/one.raw") == 1)
            #expect(started.count == 1)
            #expect(results.values.allSatisfy { (try? $0.get().image?.width) == 8 })
            #expect(tokens.allSatisfy { $0.isFinished })
        }
    }

    @Test("Given two callers of one download, when one cancels, then it gets cancelled once and the other gets the image")
    func cancelOneOfTwo() async throws {
        try await withServerAndDownloader { server, downloader in
            let gate = HTTPTestServer.Gate()
            server.route("/two.raw", HTTPTestServer.Response.ok(RawTestCoder.encode(width: 4, height: 4)).with { $0.gate = gate })
            let url = server.url("/two.raw")
            let first = Recorder<Result<ImageLoaderResult, WebImageError>>()
            let second = Recorder<Result<ImageLoaderResult, WebImageError>>()
            let token = downloader.downloadImage(with: url) { first.append($0) }
            _ = downloader.downloadImage(with: url) { second.append($0) }
            token.cancel()
            token.cancel()
            gate.open()
            #expect(await eventually { second.count == 1 })
            #expect(first.values.map(\.code) == ["cancelled"])
            #expect((try? second.values.first?.get().image?.width) == 4)
            #expect(server.requestCount("/two.raw") == 1)
        }
    }

    @Test("Given a download held part-way, when every caller cancels, then each gets cancelled and the server sees the response abandoned")
    func cancelAll() async throws {
        try await withServerAndDownloader { server, downloader in
            // The rest of the body waits at a gate that never opens: only the client's cancel
            // can end the response (the server then counts it abandoned).
            var slow = HTTPTestServer.Response.ok(RawTestCoder.encode(width: 64, height: 64))
            slow.chunkSize = 512
            slow.bodyPause = .init(afterBytes: 512, gate: HTTPTestServer.Gate())
            server.route("/slow.raw", slow)
            let url = server.url("/slow.raw")
            let results = Recorder<Result<ImageLoaderResult, WebImageError>>()
            let responded = Recorder<Int>()
            downloader.addObserver { event in if case .receivedResponse = event { responded.append(1) } }
            let tokens = (0..<3).map { _ in downloader.downloadImage(with: url) { results.append($0) } }
            #expect(await eventually { responded.count == 1 })
            for token in tokens { token.cancel() }
            #expect(results.values.map(\.code) == ["cancelled", "cancelled", "cancelled"])
            #expect(await eventually { server.abortedResponses == 1 })
            #expect(await eventually { downloader.runningDownloadCount == 0 })
            #expect(results.count == 3)
            #expect(server.requestCount("/slow.raw") == 1, "three callers, one request")
        }
    }

    @Test("Given a download cancelled while the server holds its response, when the URL is requested again, then a new download delivers the image")
    func cancelThenRequestAgain() async throws {
        try await withServerAndDownloader { server, downloader in
            let gate = HTTPTestServer.Gate()
            server.route("/again.raw", HTTPTestServer.Response.ok(RawTestCoder.encode(width: 3, height: 3)).with { $0.gate = gate })
            let url = server.url("/again.raw")
            let cancelled = Recorder<Result<ImageLoaderResult, WebImageError>>()
            let token = downloader.downloadImage(with: url) { cancelled.append($0) }
            #expect(await eventually { gate.waitingCount == 1 })
            token.cancel()
            #expect(cancelled.values.map(\.code) == ["cancelled"])
            gate.open()
            let result = await loadFinal(downloader, url)
            #expect((try? result.get().image?.width) == 3)
            #expect(cancelled.values.map(\.code) == ["cancelled"])
            #expect(server.requestCount("/again.raw") >= 2, "the second load is a download of its own")
        }
    }

    @Test("Given callers with different thumbnail sizes, then they share one download and each gets its own size")
    func decodeOptionsShareBytes() async throws {
        try await withServerAndDownloader { server, downloader in
            let gate = HTTPTestServer.Gate()
            server.route("/thumb.raw", HTTPTestServer.Response.ok(RawTestCoder.encode(width: 40, height: 20)).with { $0.gate = gate })
            let url = server.url("/thumb.raw")
            var small = WebImageContext()
            small.imageThumbnailPixelSize = PixelSize(width: 10, height: 10)
            let full = Recorder<Result<ImageLoaderResult, WebImageError>>()
            let thumb = Recorder<Result<ImageLoaderResult, WebImageError>>()
            let raw = Recorder<Result<ImageLoaderResult, WebImageError>>()
            _ = downloader.downloadImage(with: url) { full.append($0) }
            _ = downloader.downloadImage(with: url, context: small) { thumb.append($0) }
            _ = downloader.downloadImage(with: url, options: .avoidDecodeImage) { raw.append($0) }
            gate.open()
            #expect(await eventually { full.count + thumb.count + raw.count == 3 })
            let fullResult = try #require(full.values.first)
            let thumbResult = try #require(thumb.values.first)
            let rawResult = try #require(raw.values.first)
            #expect((try? fullResult.get().image?.width) == 40)
            #expect((try? thumbResult.get().image?.width) == 10)
            #expect((try? thumbResult.get().image?.height) == 5)
            #expect((try? rawResult.get().image) == nil)
            #expect((try? rawResult.get().data) == RawTestCoder.encode(width: 40, height: 20))
            #expect(server.requestCount("/thumb.raw") == 1)
        }
    }
}

@Suite("Downloader queue (D-4)")
struct LoadingQueueEndToEndTests {
    /// Runs the D-4 scenario with one slot and returns the order in which downloads started.
    private func startOrder(_ order: ImageDownloaderConfiguration.ExecutionOrder) async throws -> [Int] {
        var configuration = testDownloaderConfiguration()
        configuration.maxConcurrentDownloads = 1
        configuration.executionOrder = order
        return try await withServerAndDownloader(configuration: configuration) { server, downloader in
            for index in 1...14 { server.route("/\(index).raw", .ok(RawTestCoder.encode(width: 1, height: 1))) }
            let started = Recorder<Int>()
            let results = Recorder<String>()
            let request: @Sendable (Int) -> Void = { index in
                _ = downloader.downloadImage(with: server.url("/\(index).raw")) { results.append($0.code) }
            }
            downloader.addObserver { event in
                guard case .started(let url) = event, let index = Int(url.deletingPathExtension().lastPathComponent) else { return }
                started.append(index)
                // Enqueue while the slot is taken: 2…7 when 1 starts, 8…14 when 7 starts.
                if index == 1 { for next in 2...7 { request(next) } }
                if index == 7 { for next in 8...14 { request(next) } }
            }
            request(1)
            #expect(await eventually { results.count == 14 })
            #expect(results.values.allSatisfy { $0 == "success" })
            #expect(server.maxInFlight == 1)
            return started.values
        }
    }

    @Test("Given LIFO and one slot, when 1…7 then (as 7 starts) 8…14 are requested, then they start 1, 7, 14…8, 6…2")
    func lifo() async throws {
        let order = try await startOrder(.lifo)
        #expect(order == [1, 7, 14, 13, 12, 11, 10, 9, 8, 6, 5, 4, 3, 2])
    }

    @Test("Given FIFO and one slot, then downloads start in request order")
    func fifo() async throws {
        let order = try await startOrder(.fifo)
        #expect(order == Array(1...14))
    }

    @Test("Given one slot and queued low downloads, when a high-priority caller joins one, then it starts next")
    func priorityEscalation() async throws {
        var configuration = testDownloaderConfiguration()
        configuration.maxConcurrentDownloads = 1
        try await withServerAndDownloader(configuration: configuration) { server, downloader in
            for name in ["busy", "a", "b", "c"] { server.route("/\(name).raw", .ok(RawTestCoder.encode(width: 1, height: 1))) }
            let started = Recorder<String>()
            let results = Recorder<String>()
            downloader.addObserver { event in
                guard case .started(let url) = event else { return }
                let name = url.deletingPathExtension().lastPathComponent
                started.append(name)
                if name == "busy" {
                    for (other, options) in [("a", WebImageOptions.lowPriority), ("b", []), ("c", .lowPriority), ("c", .highPriority)] {
                        _ = downloader.downloadImage(with: server.url("/\(other).raw"), options: options) { results.append($0.code) }
                    }
                }
            }
            _ = downloader.downloadImage(with: server.url("/busy.raw")) { results.append($0.code) }
            #expect(await eventually { results.count == 5 })
            #expect(started.values == ["busy", "c", "b", "a"])
        }
    }

    @Test("Given a limit of 3 and 30 slow downloads, then the server never sees more than 3 at once and all succeed")
    func limitNeverExceeded() async throws {
        var configuration = testDownloaderConfiguration()
        configuration.maxConcurrentDownloads = 3
        try await withServerAndDownloader(configuration: configuration) { server, downloader in
            var response = HTTPTestServer.Response.ok(RawTestCoder.encode(width: 16, height: 16))
            response.chunkSize = 256
            response.chunkDelay = .milliseconds(2)
            for index in 0..<30 { server.route("/\(index).raw", response) }
            let results = Recorder<String>()
            for index in 0..<30 {
                _ = downloader.downloadImage(with: server.url("/\(index).raw")) { results.append($0.code) }
            }
            #expect(await eventually { results.count == 30 })
            #expect(results.values.allSatisfy { $0 == "success" })
            #expect(server.maxInFlight <= 3)
            #expect(server.maxInFlight >= 1)
            #expect(server.totalRequestCount == 30)
        }
    }
}

@Suite("Downloader exactly-once delivery under churn (D-3)")
struct LoadingChurnTests {
    @Test("Given requests and cancels racing with completing downloads, then every caller completes exactly once")
    func exactlyOnce() async throws {
        try await withServerAndDownloader { server, downloader in
            server.route("/churn.raw", .ok(RawTestCoder.encode(width: 2, height: 2)))
            let url = server.url("/churn.raw")
            let callers = 400
            let counts = Recorder<(Int, String)>()
            let started = Recorder<Int>()
            downloader.addObserver { event in if case .started = event { started.append(1) } }
            await withTaskGroup(of: Void.self) { group in
                for worker in 0..<8 {
                    group.addTask {
                        for index in 0..<(callers / 8) {
                            let id = worker * 1_000 + index
                            let token = downloader.downloadImage(with: url) { counts.append((id, $0.code)) }
                            if index % 3 == 0 { token.cancel() }
                            if index % 10 == 0 { await Task.yield() }
                        }
                    }
                }
            }
            #expect(await eventually { counts.count >= callers })
            try await Task.sleep(for: .milliseconds(50))  // let any duplicate delivery show up
            let values = counts.values
            #expect(values.count == callers)
            #expect(Set(values.map(\.0)).count == callers)
            #expect(values.allSatisfy { $0.1 == "success" || $0.1 == "cancelled" })
            #expect(values.filter { $0.1 == "cancelled" }.count >= callers / 3)
            #expect(await eventually { downloader.runningDownloadCount == 0 && downloader.queuedDownloadCount == 0 })
            // At the server: one request per download started, never one per caller that
            // joined (how many downloads there are depends on timing, so no bound on that).
            let requests = server.requestCount("/churn.raw")
            #expect(requests >= 1 && requests <= started.count)
        }
    }

    @Test("Given a queue, when the limit is raised, then queued downloads start")
    func raiseLimit() async throws {
        var configuration = testDownloaderConfiguration()
        configuration.maxConcurrentDownloads = 1
        // Only the gate ends the held download: its timeouts outlast the hang guards below.
        configuration.downloadTimeout = 600
        configuration.maximumDownloadDuration = 600
        try await withServerAndDownloader(configuration: configuration) { server, downloader in
            let gate = HTTPTestServer.Gate()
            server.route("/held.raw", HTTPTestServer.Response.ok(RawTestCoder.encode(width: 1, height: 1)).with { $0.gate = gate })
            server.route("/next.raw", .ok(RawTestCoder.encode(width: 1, height: 1)))
            let results = Recorder<String>()
            _ = downloader.downloadImage(with: server.url("/held.raw")) { results.append("held \($0.code)") }
            _ = downloader.downloadImage(with: server.url("/next.raw")) { results.append("next \($0.code)") }
            #expect(downloader.queuedDownloadCount == 1)
            downloader.setMaxConcurrentDownloads(2)
            #expect(await eventually { results.count == 1 })
            #expect(results.values == ["next success"])
            gate.open()
            #expect(await eventually { results.count == 2 })
        }
    }
}
