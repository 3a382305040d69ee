import ArgumentParser
import Foundation
import WebImage

/// `webimage demo`: a self-contained tour of the whole pipeline that needs no network (SPEC
/// It serves a gallery over loopback HTTP, loads it through ``ImageManager`` three times
/// (downloads with coalescing and the failed-URL list; memory hits; disk hits in a new process),
/// writes a contact sheet of the thumbnails and checks every expected outcome.
/// `--decode-only` runs the earlier decode tour instead (``DecodeTour``).
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Run a self-contained demo of the pipeline: server, coalescing, failed-URL list, caches.",
        discussion: """
            Starts an HTTP server on 127.0.0.1 (random port) serving a gallery: corpus images \
            from $WEBIMAGE_CORPUS or ../shared/corpus when present, otherwise images generated \
            with the registered encoders, some URLs requested several times at once, and three \
            broken URLs (404, an HTML body, a truncated PNG). Pass 1 loads --count requests \
            through ImageManager with thumbnails; pass 2 repeats them in the same process \
            (memory cache, failed-URL list); pass 3 runs `webimage fetch` in a new process on \
            the same cache directory (disk cache). Writes DIR/contact-sheet.png and keeps the \
            cache in DIR/cache (emptied first; never the default cache). Exits 0 only when every expected outcome happened. \
            --decode-only runs the decode tour instead: inspect, decode and thumbnail each \
            sample, no server.
            """)

    @Option(help: ArgumentHelp("Directory for the contact sheet and the cache (default: a new temporary directory).", valueName: "DIR"))
    var out: String?

    @Option(help: ArgumentHelp("Requests in each pass, duplicates and broken URLs included (16–2000).", valueName: "N"))
    var count = 200

    @Flag(name: .customLong("decode-only"), help: "Only inspect, decode and thumbnail the samples (no server, no caches).")
    var decodeOnly = false

    func validate() throws {
        if !(16...2000).contains(count) { throw ValidationError("--count must be between 16 and 2000.") }
    }

    func run() async throws {
        let directory = try outputDirectory()
        if decodeOnly {
            try DecodeTour(directory: directory).run()
            return
        }
        let succeeded = try await PipelineDemo(directory: directory, count: count).run()
        if !succeeded { throw ExitCode.failure }
    }

    private func outputDirectory() throws -> URL {
        let url: URL
        if let out {
            url = URL(fileURLWithPath: out, isDirectory: true).standardizedFileURL
        } else {
            url = FileManager.default.temporaryDirectory.appendingPathComponent(
                "webimage-demo-\(ProcessInfo.processInfo.processIdentifier)-\(UInt32.random(in: 0...UInt32.max))",
                isDirectory: true)
        }
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        } catch {
            Console.error("cannot create \(url.path): \(error.localizedDescription)")
            throw ExitCode.failure
        }
        return url
    }
}
