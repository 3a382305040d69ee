import ArgumentParser
import Foundation
import WebImage

/// The pipeline demo behind `webimage demo`: serves a ``DemoGallery`` on loopback, runs three
/// passes over the same request list, writes the contact sheet, and checks every expected
/// outcome (see ``DemoCommand``).
struct PipelineDemo {
    /// Where the contact sheet and the cache go.
    var directory: URL
    /// Requests per pass.
    var count: Int

    /// The thumbnail box every load asks for (also the contact sheet's cell).
    static let thumbnailEdge = 96
    /// Downloads in flight at most.
    static let maxDownloads = 16

    /// Runs the demo; `true` when every check passed.
    func run() async throws -> Bool {
        let coders = CodersManager.shared
        let gallery: DemoGallery
        do {
            gallery = try DemoGallery.make(count: count, corpusRoot: DemoSample.corpusRoot(), coders: coders)
        } catch {
            Console.error("cannot build the gallery: \(ImageReport.message(for: error))")
            throw ExitCode.failure
        }
        let cacheDirectory = directory.appendingPathComponent("cache", isDirectory: true)
        // A fresh cache each run: pass 1 must download, whatever an earlier run left.
        try? FileManager.default.removeItem(at: cacheDirectory)

        let server = DemoServer()
        try await server.start()
        let gate = DemoServer.Gate()
        gallery.install(on: server, popularGate: gate)

        Console.out(Console.styled("webimage demo — the whole pipeline over loopback HTTP, no network", .bold))
        Console.out("gallery:  \(gallery.source)")
        Console.out(
            "server:   \(server.url("/").absoluteString) — \(gallery.items.count) image URLs "
                + "(\(gallery.popularCount) of them requested \(DemoGallery.repeats)× at once), "
                + "\(gallery.broken.count) broken (\(gallery.broken.map(\.label).joined(separator: ", ")))")
        Console.out("requests: \(gallery.requestPaths.count) per pass, thumbnails fit \(Self.thumbnailEdge)×\(Self.thumbnailEdge)")
        Console.out("output:   \(directory.path)")
        Console.out("cache:    \(cacheDirectory.path) (emptied first)")
        Console.out("")
        Console.flush()

        var configuration = ImageCache.Configuration()
        configuration.memory.costLimit = 256 * 1024 * 1024
        let cache = ImageCache(directory: cacheDirectory, configuration: configuration)
        var downloaderConfiguration = ImageDownloaderConfiguration()
        downloaderConfiguration.maxConcurrentDownloads = Self.maxDownloads
        downloaderConfiguration.downloadTimeout = 15
        let downloader = ImageDownloader(configuration: downloaderConfiguration)
        let popularURLs = Dictionary(uniqueKeysWithValues: gallery.popular.map { (server.url($0.path), DemoGallery.repeats) })
        let manager = ImageManager(cache: cache, loader: DemoGateLoader(base: downloader, gate: gate, expected: popularURLs))
        var context = WebImageContext()
        context.imageThumbnailPixelSize = PixelSize(width: Self.thumbnailEdge, height: Self.thumbnailEdge)

        let urls = gallery.requestPaths.map { server.url($0) }
        var checks = DemoChecks()

        let first = await pass("pass 1: cold — everything from the server", urls, manager: manager, context: context, server: server)
        checkFirstPass(first, gallery: gallery, server: server, failedURLs: manager.failedURLs, checks: &checks)

        let second = await pass("pass 2: same process again — memory cache and failed-URL list", urls, manager: manager, context: context, server: server)
        checkSecondPass(second, gallery: gallery, server: server, checks: &checks)

        let goodURLs = urls.filter { url in !gallery.broken.contains { server.url($0.path) == url } }
        let third = await childPass(goodURLs, cacheDirectory: cacheDirectory, server: server)
        checkThirdPass(third, gallery: gallery, checks: &checks)

        writeContactSheet(first, gallery: gallery, server: server, coders: coders, checks: &checks)

        try? await downloader.shutdown()
        await server.shutdown()

        Console.out("")
        for line in DemoPassRow.table([first.row, second.row, third.row]).render() { Console.out(line) }
        Console.out("")
        Console.out(Console.styled("checks", .bold))
        for line in checks.lines() { Console.out(line) }
        Console.out("")
        Console.out(checks.verdict())
        return checks.allPassed
    }

    // MARK: - Passes

    /// One in-process pass: its results (in request order) and its row of the report.
    struct Pass {
        var results: [Result<ImageResult, WebImageError>]
        var row: DemoPassRow
        var serverRequests: Int
    }

    /// Loads every URL at once through `manager` (the downloader bounds the transfers), with
    /// progress on standard error.
    private func pass(
        _ title: String, _ urls: [URL], manager: ImageManager, context: WebImageContext, server: DemoServer
    ) async -> Pass {
        Console.note(title)
        let before = server.totalRequestCount
        let start = ContinuousClock.now
        let reporter = ProgressReporter(total: urls.count)
        var results = [Result<ImageResult, WebImageError>?](repeating: nil, count: urls.count)
        await withTaskGroup(of: (Int, Result<ImageResult, WebImageError>).self) { group in
            for (index, url) in urls.enumerated() {
                group.addTask {
                    do {
                        return (index, .success(try await manager.loadImage(with: url, options: [.waitStoreCache], context: context)))
                    } catch let error as WebImageError {
                        return (index, .failure(error))
                    } catch {
                        return (index, .failure(.invalidDownloadOperation(reason: "\(error)")))
                    }
                }
            }
            for await (index, result) in group {
                results[index] = result
                switch result {
                case .success(let value): reporter.itemEnded("loaded \(urls[index].path) (\(FetchCommand.source(value)))")
                case .failure(let error): reporter.itemEnded("failed \(urls[index].path): \(error.code)")
                }
            }
        }
        reporter.finish()
        let seconds = ProgressReporter.seconds(ContinuousClock.now - start)
        let final = results.map { $0 ?? .failure(.cancelled) }
        var summary = FetchCommand.summarise(urls.map(\.absoluteString), results: final, failedURLs: manager.failedURLs)
        summary.seconds = seconds
        let requests = server.totalRequestCount - before
        return Pass(
            results: final,
            row: DemoPassRow(name: title.split(separator: ":").first.map(String.init) ?? title, summary: summary, serverRequests: requests),
            serverRequests: requests)
    }

    /// The third pass: `webimage fetch --json` in a new process on the same cache directory.
    struct ChildPass {
        var row: DemoPassRow
        var status: Int32
        var summary: LoadSummary?
        var serverRequests: Int
        var stderr: String
        var launchError: String?
    }

    private func childPass(_ urls: [URL], cacheDirectory: URL, server: DemoServer) async -> ChildPass {
        let title = "pass 3: a new process — `webimage fetch --cache-dir` on the same cache (disk cache)"
        Console.note(title)
        let arguments = [
            "fetch", "--json", "--cache-dir", cacheDirectory.path, "--thumbnail", String(Self.thumbnailEdge),
            "--concurrency", String(Self.maxDownloads),
        ] + urls.map(\.absoluteString)
        let before = server.totalRequestCount
        let start = ContinuousClock.now
        let outcome = await ChildProcess.run(arguments, scratch: directory)
        let requests = server.totalRequestCount - before
        var summary: LoadSummary?
        if let line = outcome.stdout.split(separator: "\n").last {
            summary = try? JSONDecoder().decode(LoadSummary.self, from: Data(line.utf8))
        }
        var shown = summary ?? LoadSummary()
        shown.seconds = ProgressReporter.seconds(ContinuousClock.now - start)
        Console.note(outcome.launchError.map { "could not start the child process: \($0)" } ?? "child process exited with status \(outcome.status)")
        return ChildPass(
            row: DemoPassRow(name: "pass 3", summary: shown, serverRequests: requests),
            status: outcome.status, summary: summary, serverRequests: requests, stderr: outcome.stderr,
            launchError: outcome.launchError)
    }

    // MARK: - Checks

    private func checkFirstPass(
        _ pass: Pass, gallery: DemoGallery, server: DemoServer, failedURLs: FailedURLList, checks: inout DemoChecks
    ) {
        let brokenPaths = Set(gallery.broken.map(\.path))
        let good = zip(gallery.requestPaths, pass.results).filter { !brokenPaths.contains($0.0) }
        let delivered = good.filter { if case .success(let value) = $0.1 { value.image != nil } else { false } }.count
        checks.add(
            delivered == good.count,
            "pass 1: \(delivered) of \(good.count) requests of good URLs delivered an image",
            failure: good.compactMap { path, result in
                if case .failure(let error) = result { "\(path): \(error)" } else { nil }
            }.prefix(3).joined(separator: "; "))

        let popularPaths = Set(gallery.popular.map(\.path))
        let popularRequests = gallery.popular.map { server.requestCount($0.path) }
        var joined = 0
        for path in popularPaths {
            let downloads = zip(gallery.requestPaths, pass.results).filter { entry in
                guard entry.0 == path, case .success(let value) = entry.1 else { return false }
                return value.cacheType == .none
            }.count
            joined += max(0, downloads - 1)
        }
        checks.add(
            popularRequests.allSatisfy { $0 == 1 } && joined == popularPaths.count * (DemoGallery.repeats - 1),
            "coalescing: \(gallery.popularCount) URLs requested \(DemoGallery.repeats)× at once → "
                + "\(popularRequests.reduce(0, +)) server requests; \(joined) callers joined a running download",
            failure: "server requests per URL: \(popularRequests)")

        let goodCounts = gallery.items.map { server.requestCount($0.path) }
        checks.add(
            goodCounts.allSatisfy { $0 == 1 },
            "pass 1: each of the \(gallery.items.count) good URLs reached the server exactly once",
            failure: "\(goodCounts.filter { $0 != 1 }.count) URLs were requested \(Set(goodCounts.filter { $0 != 1 }).sorted()) times")

        var descriptions: [String] = []
        var brokenOK = true
        for entry in gallery.broken {
            let url = server.url(entry.path)
            let result = zip(gallery.requestPaths, pass.results).first { $0.0 == entry.path }?.1
            if case .failure(let error) = result {
                descriptions.append("\(entry.label) → \(error.code)")
            } else {
                descriptions.append("\(entry.label) → did not fail")
                brokenOK = false
            }
            if !failedURLs.contains(url) || server.requestCount(entry.path) != 1 { brokenOK = false }
        }
        checks.add(
            brokenOK,
            "broken URLs failed with typed errors (\(descriptions.joined(separator: ", "))), one server request each, all on the failed-URL list",
            failure: "listed: \(gallery.broken.filter { failedURLs.contains(server.url($0.path)) }.count) of \(gallery.broken.count)")
    }

    private func checkSecondPass(_ pass: Pass, gallery: DemoGallery, server: DemoServer, checks: inout DemoChecks) {
        let brokenPaths = Set(gallery.broken.map(\.path))
        let entries = Array(zip(gallery.requestPaths, pass.results))
        let good = entries.filter { !brokenPaths.contains($0.0) }
        let memory = good.filter { if case .success(let value) = $0.1 { value.cacheType == .memory && value.image != nil } else { false } }.count
        checks.add(
            memory == good.count && pass.serverRequests == 0,
            "memory cache: pass 2 served \(memory) of \(good.count) requests of good URLs from memory; \(pass.serverRequests) server requests")
        let refused = entries.filter { entry in
            guard brokenPaths.contains(entry.0), case .failure(.blackListed) = entry.1 else { return false }
            return true
        }.count
        let brokenRequests = gallery.broken.map { server.requestCount($0.path) }
        checks.add(
            refused == gallery.broken.count && brokenRequests.allSatisfy { $0 == 1 },
            "failed-URL list: pass 2 refused \(refused) of \(gallery.broken.count) broken URLs (blackListed) without asking the server again")
    }

    private func checkThirdPass(_ pass: ChildPass, gallery: DemoGallery, checks: inout DemoChecks) {
        guard let summary = pass.summary else {
            let tail = pass.stderr.split(separator: "\n").suffix(3).joined(separator: " | ")
            checks.add(false, "disk cache: the new process reported no summary", failure: pass.launchError ?? "status \(pass.status): \(tail)")
            return
        }
        checks.add(
            pass.status == 0 && summary.diskHits == gallery.items.count && summary.downloaded == 0 && summary.failed == 0
                && pass.serverRequests == 0,
            "disk cache: a new process found \(summary.diskHits) of \(gallery.items.count) good URLs on disk; "
                + "\(summary.downloaded) downloaded, \(pass.serverRequests) server requests",
            failure: "exit status \(pass.status), failed \(summary.failed)")
    }

    // MARK: - Contact sheet

    private func writeContactSheet(
        _ pass: Pass, gallery: DemoGallery, server: DemoServer, coders: CodersManager, checks: inout DemoChecks
    ) {
        var firstImage: [String: Image] = [:]
        for (path, result) in zip(gallery.requestPaths, pass.results) {
            if firstImage[path] == nil, case .success(let value) = result, let image = value.image { firstImage[path] = image }
        }
        let images: [Image?] = gallery.items.map { firstImage[$0.path] } + gallery.broken.map { _ in nil }
        let destination = directory.appendingPathComponent("contact-sheet.png")
        do {
            let (data, size) = try ContactSheet(cellEdge: Self.thumbnailEdge).png(images, coders: coders)
            do {
                try data.write(to: destination, options: .atomic)
            } catch {
                throw WebImageError.cacheIO(reason: "cannot write \(destination.path): \(error.localizedDescription)")
            }
            let decoded = try coders.decode(Data(contentsOf: destination), options: .default)
            checks.add(
                decoded.pixelSize == size,
                "contact sheet: \(destination.path) — \(size) pixels, \(images.count) cells (\(gallery.broken.count) crossed out), \(data.count) bytes, decodes back")
        } catch {
            checks.add(false, "contact sheet: \(destination.path) not written", failure: ImageReport.message(for: error))
        }
    }
}
