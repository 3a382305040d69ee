import ArgumentParser
import Foundation
import WebImage

/// Options `fetch` and `prefetch` share: where the disk cache lives, how many loads run at once,
/// and whether the summary is JSON.
struct LoadingOptions: ParsableArguments {
    @Option(name: .customLong("cache-dir"), help: ArgumentHelp("The disk cache directory (default: the default cache).", valueName: "dir"))
    var cacheDirectory: String?

    @Option(help: ArgumentHelp("At most this many loads in flight.", valueName: "n"))
    var concurrency = 6

    @Option(help: ArgumentHelp("Seconds a connection may wait for the server, to connect or between bytes.", valueName: "seconds"))
    var timeout = 15.0

    @OptionGroup var maxTime: MaxTimeOption

    @Flag(help: "End with one JSON object summarising the run instead of a table.")
    var json = false

    @OptionGroup(title: "Address policy")
    var addressPolicy: AddressPolicyOptions

    func validate() throws {
        try OptionLimits.checkConcurrency(concurrency)
        try OptionLimits.checkTimeout(timeout)
        try addressPolicy.validate()
    }

    /// A pipeline for one run: the cache these options name (``ImageCache/init(directory:configuration:coders:pool:)``
    /// for `--cache-dir`, else ``ImageCache/shared``) and a downloader allowing `concurrency`
    /// transfers. Call ``LoadingPipeline/shutdown()`` when done.
    func pipeline() -> LoadingPipeline {
        let cache = cacheDirectory.map { ImageCache(directory: URL(fileURLWithPath: $0, isDirectory: true)) } ?? ImageCache.shared
        var configuration = ImageDownloaderConfiguration()
        configuration.maxConcurrentDownloads = concurrency
        configuration.downloadTimeout = timeout
        configuration.addressPolicy = addressPolicy.policy
        configuration.requestModifier = S3Sources.requestModifier()
        maxTime.apply(to: &configuration)
        let downloader = ImageDownloader(configuration: configuration)
        let manager = ImageManager(cache: cache, loader: LoadersManager(loaders: [LocalImageLoader(), downloader]))
        if maxTime.maxTime != nil {
            // Every load, whoever starts it (fetch's loop, prefetch's prefetcher), gets the deadline.
            let seconds = maxTime.maxTime
            manager.optionsProcessor = OptionsProcessorClosure { _, input in
                var output = input
                output.context.maximumLoadDuration = seconds
                return output
            }
        }
        return LoadingPipeline(manager: manager, downloader: downloader)
    }
}

/// The manager a command loads through, and the downloader it owns.
struct LoadingPipeline {
    let manager: ImageManager
    let downloader: ImageDownloader

    /// Releases the downloader's HTTP client.
    func shutdown() async {
        try? await downloader.shutdown()
    }
}
