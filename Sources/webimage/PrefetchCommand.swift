import ArgumentParser
import Foundation
import Synchronization
import WebImage

/// `webimage prefetch --from FILE|-`: warms the caches with the URLs listed in a file (or
/// standard input) through ``ImagePrefetcher`` (SPEC X-5, P-1).
struct PrefetchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prefetch",
        abstract: "Warm the caches with the URLs listed in a file.",
        discussion: """
            The list has one URL per line; blank lines and lines starting with # are ignored. \
            The report counts URLs as `fetch` does, plus what the prefetcher finished and \
            skipped (failed or invalid). The exit status is non-zero when any URL was skipped.
            """)

    @Option(name: .customLong("from"), help: ArgumentHelp("The file of URLs, or - for standard input.", valueName: "file"))
    var source: String

    @OptionGroup var loading: LoadingOptions

    func run() async throws {
        try loading.checkCacheDirectory()
        let lines = try Self.readLines(from: source)
        let start = ContinuousClock.now
        var valid: [URL] = []
        var invalid: [String] = []
        for line in lines {
            if let url = URL(string: line), !(url.scheme ?? "").isEmpty { valid.append(url) } else { invalid.append(line) }
        }
        for line in invalid {
            Console.error("\(line): \(WebImageError.invalidURL(line).code): \(WebImageError.invalidURL(line))")
        }

        let pipeline = loading.pipeline()
        let tally = Self.Tally()
        let (finished, skipped) = await Self.prefetch(valid, manager: pipeline.manager, concurrency: loading.concurrency, tally: tally)
        var summary = tally.summary(failedURLs: pipeline.manager.failedURLs)
        await pipeline.shutdown()

        summary.requested = lines.count
        summary.failed += invalid.count
        summary.finished = finished
        summary.skipped = skipped + invalid.count
        summary.seconds = ProgressReporter.seconds(ContinuousClock.now - start)
        if loading.json {
            Console.out(try summary.jsonLine())
        } else {
            for line in summary.table().render() { Console.out(line) }
        }
        if summary.skipped ?? 0 > 0 { throw ExitCode.failure }
    }

    /// The URL lines of `source` (a path or `-`): trimmed, without blank lines and `#` comments.
    static func readLines(from source: String) throws -> [String] {
        let data: Data
        if source == "-" {
            data = FileHandle.standardInput.readDataToEndOfFile()
        } else {
            do {
                data = try LocalFile.read(source)
            } catch {
                throw ValidationError("Cannot read \(error.description)")
            }
        }
        return String(decoding: data, as: UTF8.self)
            .split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.hasPrefix("#") }
    }

    /// Runs one prefetch batch and waits for it; returns the prefetcher's finished and skipped
    /// counts.
    static func prefetch(_ urls: [URL], manager: ImageManager, concurrency: Int, tally: Tally) async -> (Int, Int) {
        guard !urls.isEmpty else { return (0, 0) }
        let reporter = ProgressReporter(total: urls.count)
        // waitStoreCache: the disk write is done when a URL counts as finished, so the cache is
        // warm when the process exits.
        let prefetcher = ImagePrefetcher(
            manager: manager, maxConcurrentPrefetchCount: concurrency, options: [.lowPriority, .waitStoreCache])
        prefetcher.setObserver { url, result in
            tally.record(url, result)
            if case .failure(let error) = result {
                reporter.message("error: \(url.absoluteString): \(error.code): \(error)")
            } else if !ProgressReporter.isTerminal {
                reporter.message("prefetched \(url.absoluteString)")
            }
        }
        let counts = await withCheckedContinuation { (continuation: CheckedContinuation<(Int, Int), Never>) in
            prefetcher.prefetchURLs(
                urls,
                progress: { done, total in reporter.update(done: done, total: total) },
                completed: { finished, skipped in continuation.resume(returning: (finished, skipped)) })
        }
        reporter.finish()
        return counts
    }

    /// Collects outcomes as they arrive from any thread; counts them per distinct URL at the end
    /// (see ``LoadSummary/record(_:blacklisted:)``).
    final class Tally: Sendable {
        private struct State {
            var order: [URL] = []
            var outcomes: [URL: [LoadOutcome]] = [:]
        }

        private let state = Mutex(State())

        func record(_ url: URL, _ result: Result<ImageResult, WebImageError>) {
            let outcome = LoadOutcome(result)
            state.withLock { state in
                if state.outcomes[url] == nil { state.order.append(url) }
                state.outcomes[url, default: []].append(outcome)
            }
        }

        /// The counts, with failed URLs now on `failedURLs` counted as blacklisted.
        func summary(failedURLs: FailedURLList) -> LoadSummary {
            state.withLock { state in
                var summary = LoadSummary()
                for url in state.order {
                    summary.record(state.outcomes[url] ?? [], blacklisted: failedURLs.contains(url))
                }
                return summary
            }
        }
    }
}
