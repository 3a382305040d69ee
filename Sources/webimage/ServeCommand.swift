import ArgumentParser
import Foundation
import Logging
import WebImageServer

/// `webimage serve`: the imgproxy-compatible image service (SPEC V-1). Settings come from
/// flags, `WEBIMAGE_*` variables and `--config FILE` (one table: ``ImageServiceSettings``).
/// Prints exactly one line, `listening on http://HOST:PORT`, to standard output once it
/// accepts connections; logs go to standard error.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the image service (imgproxy-compatible URLs).",
        discussion: """
            Every flag is also a WEBIMAGE_* environment variable (e.g. WEBIMAGE_MAX_SRC_BYTES; \
            repeatable ones comma-separated) and a `name = value` line of --config FILE. Flags win \
            over the environment, which wins over the file. Without --key/--salt the service runs \
            unsigned and accepts any signature segment (e.g. `insecure`). Sources on loopback, \
            private and link-local addresses are refused unless --allow-network/--allow-address \
            allow them.
            """)

    @Option(help: "Configuration file of `name = value` lines.") var config: String?
    @Option(help: "HOST:PORT to listen on; port 0 picks a free port.") var bind: String?
    @Option(help: "Requests processed at once.") var workers: String?
    @Option(help: "Requests allowed to wait; beyond, 429.") var queue: String?
    @Option(name: .customLong("fetch-ahead"), help: "Requests that may fetch their source while every worker is busy (default: all; 0 = only for a free worker).") var fetchAhead: String?
    @Option(name: .customLong("max-src-resolution"), help: "Largest source in megapixels.") var maxSrcResolution: String?
    @Option(name: .customLong("max-src-bytes"), help: "Largest source in bytes.") var maxSrcBytes: String?
    @Option(name: .customLong("max-animation-frames"), help: "Most frames of an animated source.") var maxAnimationFrames: String?
    @Option(help: "Cache-Control max-age in seconds.") var ttl: String?
    @Option(name: .customLong("auto-webp"), help: "Answer WebP to clients that accept it (true/false).") var autoWebP: String?
    @Option(name: .customLong("auto-avif"), help: "Answer AVIF to clients that accept it (true/false).") var autoAVIF: String?
    @Option(name: .customLong("strip-color-profile"), help: "Convert to sRGB and write no colour profile (true/false; default true).") var stripColorProfile: String?
    @Option(name: .customLong("cache-dir"), help: "Source cache directory.") var cacheDir: String?
    @Option(name: .customLong("cache-max-size"), help: "Bytes the source cache may hold; past it the oldest half is removed (default 1 GiB; 0 = unbounded).") var cacheMaxSize: String?
    @Option(name: .customLong("cache-max-age"), help: "Seconds a source stays in the source cache after it was written (default 7 days).") var cacheMaxAge: String?
    @Option(name: .customLong("local-root"), help: "Root of local:// sources.") var localRoot: String?
    @Option(name: .customLong("source-revalidate-after"), help: "Seconds a cached source is used before revalidating it.") var sourceRevalidateAfter: String?
    @Option(help: "NAME=OPTIONS preset (repeatable); `default` applies to every URL.") var preset: [String] = []
    @Option(help: "Hex signing key (repeatable, paired with --salt).") var key: [String] = []
    @Option(help: "Hex signing salt (repeatable).") var salt: [String] = []
    @Option(name: .customLong("signature-size"), help: "Bytes of HMAC kept in signatures (1-32).") var signatureSize: String?
    @Option(name: .customLong("allow-source"), help: "Allowed source URL prefix (repeatable).") var allowSource: [String] = []
    @Option(name: .customLong("allow-network"), help: "Allow sources on loopback, private or link-local addresses (repeatable).") var allowNetwork: [String] = []
    @Option(name: .customLong("allow-address"), help: "Allow sources in this CIDR range (repeatable).") var allowAddress: [String] = []
    @Option(name: .customLong("download-timeout"), help: "Seconds a source download may take.") var downloadTimeout: String?
    @Option(name: .customLong("result-cache-bytes"), help: "Bytes of results kept in memory.") var resultCacheBytes: String?
    @Option(name: .customLong("max-processing-time"), help: "Seconds a request may take from fetch to encode (then 504).") var maxProcessingTime: String?
    @Option(name: .customLong("max-result-bytes"), help: "Largest encoded result in bytes (then 422).") var maxResultBytes: String?
    @Option(name: .customLong("max-result-resolution"), help: "Largest result in megapixels, checked before processing (then 400; default 50).") var maxResultResolution: String?
    @Option(name: .customLong("max-processing-memory"), help: "Bytes of result-sized canvases one request may hold while processing (then 400; default 1 GiB).") var maxProcessingMemory: String?
    @Option(name: .customLong("sanitize-svg"), help: "Remove scripts, event handlers and external references from SVG answered as SVG (true/false; default true).") var sanitizeSVG: String?
    @Option(name: .customLong("max-clients"), help: "Client connections held at once; more wait to be accepted (default 2048, lowered to what the file descriptor limit allows).") var maxClients: String?
    @Option(name: .customLong("header-timeout"), help: "Seconds a request's head may take to arrive after its first byte (default 10).") var headerTimeout: String?
    @Option(name: .customLong("keep-alive-timeout"), help: "Seconds an idle connection is kept open.") var keepAliveTimeout: String?
    @Option(name: .customLong("fallback-image"), help: "Image file answered (processed like the source) when a source cannot be had.") var fallbackImage: String?
    @Option(name: .customLong("fallback-image-status"), help: "Status of a fallback answer (default 200; 0 = the error's status).") var fallbackImageStatus: String?
    @Option(name: .customLong("fallback-image-ttl"), help: "Cache-Control max-age of a fallback answer (default: the ttl).") var fallbackImageTTL: String?

    func run() async throws {
        // Before the service's threads allocate (docs/DEPLOYMENT.md, "Memory").
        ServiceAllocator.tune(environment: ProcessInfo.processInfo.environment)
        var flags: [String: [String]] = [:]
        let single: [(String, String?)] = [
            ("bind", bind), ("workers", workers), ("queue", queue), ("fetch-ahead", fetchAhead), ("max-src-resolution", maxSrcResolution),
            ("max-src-bytes", maxSrcBytes), ("max-animation-frames", maxAnimationFrames), ("ttl", ttl),
            ("auto-webp", autoWebP), ("auto-avif", autoAVIF), ("strip-color-profile", stripColorProfile), ("cache-dir", cacheDir), ("cache-max-size", cacheMaxSize), ("cache-max-age", cacheMaxAge), ("local-root", localRoot), ("source-revalidate-after", sourceRevalidateAfter),
            ("signature-size", signatureSize), ("download-timeout", downloadTimeout), ("result-cache-bytes", resultCacheBytes),
            ("max-processing-time", maxProcessingTime), ("max-result-bytes", maxResultBytes),
            ("max-result-resolution", maxResultResolution), ("max-processing-memory", maxProcessingMemory), ("sanitize-svg", sanitizeSVG),
            ("keep-alive-timeout", keepAliveTimeout), ("header-timeout", headerTimeout), ("max-clients", maxClients), ("fallback-image", fallbackImage), ("fallback-image-status", fallbackImageStatus), ("fallback-image-ttl", fallbackImageTTL),
        ]
        for (name, value) in single { if let value { flags[name] = [value] } }
        let repeated: [(String, [String])] = [
            ("preset", preset), ("key", key), ("salt", salt), ("allow-source", allowSource),
            ("allow-network", allowNetwork), ("allow-address", allowAddress),
        ]
        for (name, list) in repeated where !list.isEmpty { flags[name] = list }

        let configuration: ImageServiceConfiguration, host: String, port: Int
        do {
            var values: [String: [String]] = [:]
            if let config {
                guard let text = try? String(contentsOfFile: config, encoding: .utf8) else {
                    throw ValidationError("cannot read --config \(config)")
                }
                values = try ImageServiceSettings.values(fromConfigFile: text)
            }
            values = ImageServiceSettings.merge(values, ImageServiceSettings.values(fromEnvironment: ProcessInfo.processInfo.environment))
            values = ImageServiceSettings.merge(values, flags)
            (configuration, host, port) = try ImageServiceSettings.configuration(from: values)
        } catch let problem as ImageServiceSettings.Problem {
            throw ValidationError(problem.description)
        }
        let logger = Logger(label: "webimage.server")
        if configuration.keyPairs.isEmpty {
            logger.warning("no --key/--salt: URL signatures are NOT checked (unsigned mode, `insecure` accepted)")
        }
        let service = ImageService(configuration: configuration)
        try await ImageServer.run(service: service, host: host, port: port, logger: logger) { host, port in
            // Unbuffered: tools and tests read this line while the service runs.
            FileHandle.standardOutput.write(Data("listening on http://\(host):\(port)\n".utf8))
        }
    }
}
