import ArgumentParser
import Foundation
import WebImage

/// `webimage fetch URL...`: loads every URL through the full pipeline (failed-URL list, memory
/// and disk caches, coalesced downloads, decoding), optionally writes the images to a directory,
/// and prints what came from where (SPEC X-5).
struct FetchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetch",
        abstract: "Load images through the pipeline and caches; optionally save them.",
        discussion: """
            Each distinct URL is counted once — downloaded, disk hit, memory hit or failed, the \
            best outcome of its requests in that order; every further occurrence of a URL counts \
            as coalesced. `blacklisted` counts failed URLs put on the failed-URL list. With --out, \
            images are written under names from the URL's last path component (made safe and \
            unique): the original bytes, or re-encoded with --format or --thumbnail. The exit \
            status is non-zero when any URL failed.
            """)

    /// The formats `--format` accepts.
    enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
        case jpeg, png, webp, avif

        var imageFormat: ImageFormat {
            switch self {
            case .jpeg: .jpeg
            case .png: .png
            case .webp: .webp
            case .avif: .avif
            }
        }
    }

    @Argument(help: ArgumentHelp("Image URLs (http, https, file or data).", valueName: "url"))
    var urls: [String]

    @Option(help: ArgumentHelp("Write the images to this directory (created if needed).", valueName: "dir"))
    var out: String?

    @Option(help: ArgumentHelp("Decode to fit a PX×PX box (aspect ratio kept); cached under its own key.", valueName: "px"))
    var thumbnail: Int?

    @Option(help: "Re-encode written images (default: write the original bytes).")
    var format: OutputFormat?

    @OptionGroup var loading: LoadingOptions

    func validate() throws {
        if urls.isEmpty { throw ValidationError("Give at least one URL.") }
        try OptionLimits.checkPixels(thumbnail, option: "--thumbnail")
        if format != nil && out == nil { throw ValidationError("--format applies to written files: add --out DIR.") }
    }

    func run() async throws {
        try loading.checkCacheDirectory()
        let outputDirectory = try out.map(Self.prepareDirectory)
        var context = WebImageContext()
        if let thumbnail { context.imageThumbnailPixelSize = PixelSize(width: thumbnail, height: thumbnail) }

        let pipeline = loading.pipeline()
        let start = ContinuousClock.now
        let results = await Self.load(urls, manager: pipeline.manager, context: context, concurrency: loading.concurrency)
        var summary = Self.summarise(urls, results: results, failedURLs: pipeline.manager.failedURLs)
        await pipeline.shutdown()

        var writeFailed = false
        var written = 0
        if let outputDirectory {
            (written, writeFailed) = writeImages(results, to: outputDirectory)
        }
        summary.seconds = ProgressReporter.seconds(ContinuousClock.now - start)

        if loading.json {
            Console.out(try summary.jsonLine())
        } else {
            for line in summary.table().render() { Console.out(line) }
            if let outputDirectory { Console.out("wrote \(written) file(s) to \(outputDirectory.path)") }
        }
        if writeFailed || results.contains(where: { if case .failure = $0 { true } else { false } }) {
            throw ExitCode.failure
        }
    }

    /// Loads `urls` with at most `concurrency` loads in flight; the results in list order.
    static func load(
        _ urls: [String], manager: ImageManager, context: WebImageContext, concurrency: Int
    ) async -> [Result<ImageResult, WebImageError>] {
        let reporter = ProgressReporter(total: urls.count)
        var results = [Result<ImageResult, WebImageError>?](repeating: nil, count: urls.count)
        await withTaskGroup(of: (Int, Result<ImageResult, WebImageError>).self) { group in
            let load: @Sendable (Int) async -> (Int, Result<ImageResult, WebImageError>) = { index in
                do {
                    let value = try await manager.loadImage(
                        with: urls[index], options: [.queryMemoryData, .waitStoreCache], context: context)
                    return (index, .success(value))
                } catch let error as WebImageError {
                    return (index, .failure(error))
                } catch {
                    return (index, .failure(.invalidDownloadOperation(reason: "\(error)")))
                }
            }
            var next = 0
            while next < min(concurrency, urls.count) {
                let index = next
                group.addTask { await load(index) }
                next += 1
            }
            for await (index, result) in group {
                results[index] = result
                switch result {
                case .success(let value):
                    reporter.itemEnded("fetched \(urls[index]) (\(Self.source(value)))")
                case .failure(let error):
                    reporter.itemEnded("error: \(urls[index]): \(error.code): \(error)", isError: true)
                }
                if next < urls.count {
                    let index = next
                    group.addTask { await load(index) }
                    next += 1
                }
            }
        }
        reporter.finish()
        return results.map { $0 ?? .failure(.cancelled) }
    }

    /// The counts of a run: each distinct URL once (see ``LoadSummary/record(_:blacklisted:)``),
    /// repeats as coalesced.
    static func summarise(
        _ urls: [String], results: [Result<ImageResult, WebImageError>], failedURLs: FailedURLList
    ) -> LoadSummary {
        var summary = LoadSummary()
        summary.requested = urls.count
        var order: [String] = []
        var outcomes: [String: [LoadOutcome]] = [:]
        for (urlString, result) in zip(urls, results) {
            if outcomes[urlString] == nil { order.append(urlString) }
            outcomes[urlString, default: []].append(LoadOutcome(result))
        }
        for urlString in order {
            let listed = URL(string: urlString).map(failedURLs.contains) ?? false
            summary.record(outcomes[urlString] ?? [], blacklisted: listed)
        }
        return summary
    }

    /// Writes the image of each distinct URL that loaded; returns how many files were written
    /// and whether any write failed (reported on standard error).
    func writeImages(_ results: [Result<ImageResult, WebImageError>], to directory: URL) -> (Int, Bool) {
        var names = OutputFileNames()
        var seen: Set<String> = []
        var written = 0
        var failed = false
        for (urlString, result) in zip(urls, results) {
            guard seen.insert(urlString).inserted, case .success(let value) = result else { continue }
            do {
                try write(value, names: &names, directory: directory)
                written += 1
            } catch {
                failed = true
                if case WebImageError.fileAccess(let path, let reason)? = error as? WebImageError {
                    Console.error("\(urlString): \(path): \(reason)")
                } else {
                    Console.error("\(urlString): cannot write: \(error)")
                }
            }
        }
        return (written, failed)
    }

    /// Writes one image: the original bytes, or re-encoded when `--format` or `--thumbnail`
    /// asks for it (or when the bytes are not available).
    private func write(_ value: ImageResult, names: inout OutputFileNames, directory: URL) throws {
        let reencode = format != nil || thumbnail != nil || value.data == nil
        if !reencode, let data = value.data {
            let detected = ImageFormat.detect(data)
            let urlExtension = OutputFileNames.sanitizedParts(of: value.url.lastPathComponent).ext
            let name = names.name(for: value.url, fileExtension: urlExtension ?? detected.fileExtension)
            let destination = try Self.destination(name, in: directory)
            try LocalFile.writeAtomically(data, to: destination.path)
            return
        }
        guard let image = value.image else {
            throw WebImageError.badImageData(reason: "the load delivered no image")
        }
        let target = format?.imageFormat ?? Self.encodableFormat(for: image)
        let destination = try Self.destination(names.name(for: value.url, fileExtension: target.fileExtension), in: directory)
        _ = try ImageConversion(format: target).write(image, to: destination)
    }

    private static func destination(_ name: String, in directory: URL) throws -> URL {
        guard let url = OutputFileNames.destination(name, in: directory) else {
            throw WebImageError.cacheIO(reason: "unsafe output name \(name)")
        }
        return url
    }

    /// The image's own format when it can be encoded, else PNG.
    static func encodableFormat(for image: Image) -> ImageFormat {
        CodersManager.shared.canEncode(image.format) ? image.format : .png
    }

    /// Creates `path` if needed and returns it as a directory URL.
    static func prepareDirectory(_ path: String) throws -> URL {
        let url = URL(fileURLWithPath: path, isDirectory: true).standardizedFileURL
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        } catch {
            throw ValidationError("Cannot create the output directory \(path): \(error.localizedDescription)")
        }
        return url
    }

    /// Where a result came from, for the progress lines.
    static func source(_ value: ImageResult) -> String {
        switch value.cacheType {
        case .memory: "memory"
        case .disk: "disk"
        case .none, .all: "downloaded, \(value.data?.count ?? 0) bytes"
        }
    }
}
