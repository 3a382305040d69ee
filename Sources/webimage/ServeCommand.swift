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
    @Option(help: Self.help("bind")) var bind: String?
    @Option(help: Self.help("workers")) var workers: String?
    @Option(help: Self.help("queue")) var queue: String?
    @Option(name: .customLong("fetch-ahead"), help: Self.help("fetch-ahead")) var fetchAhead: String?
    @Option(name: .customLong("max-src-resolution"), help: Self.help("max-src-resolution")) var maxSrcResolution: String?
    @Option(name: .customLong("max-src-bytes"), help: Self.help("max-src-bytes")) var maxSrcBytes: String?
    @Option(name: .customLong("max-animation-frames"), help: Self.help("max-animation-frames")) var maxAnimationFrames: String?
    @Option(name: .customLong("max-animation-frame-resolution"), help: Self.help("max-animation-frame-resolution")) var maxAnimationFrameResolution: String?
    @Option(name: .customLong("max-result-dimension"), help: Self.help("max-result-dimension")) var maxResultDimension: String?
    @Option(name: .customLong("max-chained-pipelines"), help: Self.help("max-chained-pipelines")) var maxChainedPipelines: String?
    @Option(help: Self.help("ttl")) var ttl: String?
    @Option(name: .customLong("auto-webp"), help: Self.help("auto-webp")) var autoWebP: String?
    @Option(name: .customLong("auto-avif"), help: Self.help("auto-avif")) var autoAVIF: String?
    @Option(name: .customLong("auto-jxl"), help: Self.help("auto-jxl")) var autoJXL: String?
    @Option(name: .customLong("jxl-effort"), help: Self.help("jxl-effort")) var jxlEffort: String?
    @Option(name: .customLong("avif-speed"), help: Self.help("avif-speed")) var avifSpeed: String?
    @Option(name: .customLong("avif-subsample"), help: Self.help("avif-subsample")) var avifSubsample: String?
    @Option(name: .customLong("strip-color-profile"), help: Self.help("strip-color-profile")) var stripColorProfile: String?
    @Option(name: .customLong("preserve-hdr"), help: Self.help("preserve-hdr")) var preserveHDR: String?
    @Option(name: .customLong("cache-dir"), help: Self.help("cache-dir")) var cacheDir: String?
    @Option(name: .customLong("cache-max-size"), help: Self.help("cache-max-size")) var cacheMaxSize: String?
    @Option(name: .customLong("cache-max-age"), help: Self.help("cache-max-age")) var cacheMaxAge: String?
    @Option(name: .customLong("local-root"), help: Self.help("local-root")) var localRoot: String?
    @Option(name: .customLong("source-revalidate-after"), help: Self.help("source-revalidate-after")) var sourceRevalidateAfter: String?
    @Option(help: Self.help("preset")) var preset: [String] = []
    @Option(help: Self.help("key")) var key: [String] = []
    @Option(help: Self.help("salt")) var salt: [String] = []
    @Option(name: .customLong("signature-size"), help: Self.help("signature-size")) var signatureSize: String?
    @Option(name: .customLong("allow-source"), help: Self.help("allow-source")) var allowSource: [String] = []
    @Option(name: .customLong("use-s3"), help: Self.help("use-s3")) var useS3: String?
    @Option(name: .customLong("s3-endpoint"), help: Self.help("s3-endpoint")) var s3Endpoint: String?
    @Option(name: .customLong("s3-region"), help: Self.help("s3-region")) var s3Region: String?
    @Option(name: .customLong("s3-endpoint-use-path-style"), help: Self.help("s3-endpoint-use-path-style")) var s3PathStyle: String?
    @Option(name: .customLong("s3-allowed-bucket"), help: Self.help("s3-allowed-bucket")) var s3AllowedBucket: [String] = []
    @Option(name: .customLong("s3-denied-bucket"), help: Self.help("s3-denied-bucket")) var s3DeniedBucket: [String] = []
    @Option(name: .customLong("allow-network"), help: Self.help("allow-network")) var allowNetwork: [String] = []
    @Option(name: .customLong("allow-address"), help: Self.help("allow-address")) var allowAddress: [String] = []
    @Option(name: .customLong("download-timeout"), help: Self.help("download-timeout")) var downloadTimeout: String?
    @Option(name: .customLong("result-cache-bytes"), help: Self.help("result-cache-bytes")) var resultCacheBytes: String?
    @Option(name: .customLong("max-processing-time"), help: Self.help("max-processing-time")) var maxProcessingTime: String?
    @Option(name: .customLong("max-result-bytes"), help: Self.help("max-result-bytes")) var maxResultBytes: String?
    @Option(name: .customLong("max-result-resolution"), help: Self.help("max-result-resolution")) var maxResultResolution: String?
    @Option(name: .customLong("max-processing-memory"), help: Self.help("max-processing-memory")) var maxProcessingMemory: String?
    @Option(name: .customLong("max-source-memory"), help: Self.help("max-source-memory")) var maxSourceMemory: String?
    @Option(name: .customLong("max-svg-time"), help: Self.help("max-svg-time")) var maxSVGTime: String?
    @Option(name: .customLong("sanitize-svg"), help: Self.help("sanitize-svg")) var sanitizeSVG: String?
    @Option(name: .customLong("max-clients"), help: Self.help("max-clients")) var maxClients: String?
    @Option(name: .customLong("header-timeout"), help: Self.help("header-timeout")) var headerTimeout: String?
    @Option(name: .customLong("first-byte-timeout"), help: Self.help("first-byte-timeout")) var firstByteTimeout: String?
    @Option(name: .customLong("keep-alive-timeout"), help: Self.help("keep-alive-timeout")) var keepAliveTimeout: String?
    @Option(name: .customLong("result-store"), help: Self.help("result-store")) var resultStore: String?
    @Option(name: .customLong("result-store-timeout"), help: Self.help("result-store-timeout")) var resultStoreTimeout: String?
    @Option(name: .customLong("fallback-image"), help: Self.help("fallback-image")) var fallbackImage: String?
    @Option(name: .customLong("fallback-image-status"), help: Self.help("fallback-image-status")) var fallbackImageStatus: String?
    @Option(name: .customLong("fallback-image-ttl"), help: Self.help("fallback-image-ttl")) var fallbackImageTTL: String?
    @Option(name: .customLong("watermark-path"), help: Self.help("watermark-path")) var watermarkPath: String?
    @Option(name: .customLong("watermark-url"), help: Self.help("watermark-url")) var watermarkURL: String?
    @Option(name: .customLong("watermark-data"), help: Self.help("watermark-data")) var watermarkData: String?
    @Option(name: .customLong("watermark-opacity"), help: Self.help("watermark-opacity")) var watermarkOpacity: String?
    @Option(name: .customLong("watermark-url-ttl"), help: Self.help("watermark-url-ttl")) var watermarkURLTTL: String?
    @Option(name: .customLong("autoquality-method"), help: Self.help("autoquality-method")) var autoqualityMethod: String?
    @Option(name: .customLong("autoquality-target"), help: Self.help("autoquality-target")) var autoqualityTarget: String?
    @Option(name: .customLong("autoquality-min"), help: Self.help("autoquality-min")) var autoqualityMin: String?
    @Option(name: .customLong("autoquality-max"), help: Self.help("autoquality-max")) var autoqualityMax: String?
    @Option(name: .customLong("autoquality-allowed-error"), help: Self.help("autoquality-allowed-error")) var autoqualityAllowedError: String?
    @Option(name: .customLong("autoquality-format-min"), help: Self.help("autoquality-format-min")) var autoqualityFormatMin: String?
    @Option(name: .customLong("autoquality-format-max"), help: Self.help("autoquality-format-max")) var autoqualityFormatMax: String?
    @Option(name: .customLong("best-format-candidates"), help: Self.help("best-format-candidates")) var bestFormatCandidates: String?
    @Option(name: .customLong("best-format-complexity-threshold"), help: Self.help("best-format-complexity-threshold")) var bestFormatComplexityThreshold: String?
    @Option(name: .customLong("best-format-max-resolution"), help: Self.help("best-format-max-resolution")) var bestFormatMaxResolution: String?
    @Option(name: .customLong("best-format-by-default"), help: Self.help("best-format-by-default")) var bestFormatByDefault: String?
    @Option(name: .customLong("best-format-allow-skips"), help: Self.help("best-format-allow-skips")) var bestFormatAllowSkips: String?

    @Option(name: .customLong("unsharp-masking-mode"), help: Self.help("unsharp-masking-mode")) var unsharpMaskingMode: String?
    @Option(name: .customLong("unsharp-masking-weight"), help: Self.help("unsharp-masking-weight")) var unsharpMaskingWeight: String?
    @Option(name: .customLong("unsharp-masking-divider"), help: Self.help("unsharp-masking-divider")) var unsharpMaskingDivider: String?

    @Option(name: .customLong("jpeg-progressive"), help: Self.help("jpeg-progressive")) var jpegProgressive: String?
    @Option(name: .customLong("jpeg-no-subsample"), help: Self.help("jpeg-no-subsample")) var jpegNoSubsample: String?
    @Option(name: .customLong("jpeg-trellis-quant"), help: Self.help("jpeg-trellis-quant")) var jpegTrellisQuant: String?
    @Option(name: .customLong("jpeg-overshoot-deringing"), help: Self.help("jpeg-overshoot-deringing")) var jpegOvershootDeringing: String?
    @Option(name: .customLong("jpeg-optimize-scans"), help: Self.help("jpeg-optimize-scans")) var jpegOptimizeScans: String?
    @Option(name: .customLong("jpeg-quant-table"), help: Self.help("jpeg-quant-table")) var jpegQuantTable: String?
    @Option(name: .customLong("png-interlaced"), help: Self.help("png-interlaced")) var pngInterlaced: String?
    @Option(name: .customLong("png-quantize"), help: Self.help("png-quantize")) var pngQuantize: String?
    @Option(name: .customLong("png-quantization-colors"), help: Self.help("png-quantization-colors")) var pngQuantizationColors: String?
    @Option(name: .customLong("webp-compression"), help: Self.help("webp-compression")) var webpCompression: String?
    @Option(name: .customLong("webp-smart-subsample"), help: Self.help("webp-smart-subsample")) var webpSmartSubsample: String?
    @Option(name: .customLong("webp-preset"), help: Self.help("webp-preset")) var webpPreset: String?

    /// The settings that are true or false: a bare `--NAME` means `--NAME true`.
    static let booleanSettings: Set<String> = [
        "auto-webp", "auto-avif", "auto-jxl", "strip-color-profile", "preserve-hdr", "sanitize-svg", "use-s3", "s3-endpoint-use-path-style",
        "best-format-by-default", "best-format-allow-skips", "jpeg-progressive", "jpeg-no-subsample", "jpeg-trellis-quant",
        "jpeg-overshoot-deringing", "jpeg-optimize-scans", "png-interlaced", "png-quantize", "webp-smart-subsample",
    ]

    /// A flag's help from the settings table: what it does and its default.
    static func help(_ name: String) -> ArgumentHelp {
        guard let setting = ImageServiceSettings.all.first(where: { $0.name == name }) else { return ArgumentHelp() }
        var text = setting.meaning.prefix(1).uppercased() + setting.meaning.dropFirst() + " (default: \(setting.defaultValue))"
        if setting.repeatable { text += "; repeatable" }
        if booleanSettings.contains(name) { text += "; a bare --\(name) means true" }
        return ArgumentHelp(text + ".", valueName: booleanSettings.contains(name) ? "true|false" : nil)
    }

    /// `arguments` with every bare boolean flag of `serve` given its value: `--auto-webp`
    /// followed by nothing, another flag or a word that is not true/false becomes
    /// `--auto-webp=true` (the argument parser needs a value for an option).
    static func expandingBareFlags(_ arguments: [String]) -> [String] {
        guard let serve = arguments.firstIndex(of: "serve") else { return arguments }
        let values: Set<String> = ["1", "0", "t", "f", "true", "false", "yes", "no", "on", "off"]
        var result = Array(arguments[...serve])
        var index = serve + 1
        while index < arguments.count {
            let argument = arguments[index]
            if argument.hasPrefix("--"), booleanSettings.contains(String(argument.dropFirst(2))) {
                let next = index + 1 < arguments.count ? arguments[index + 1] : nil
                if next.map({ values.contains($0.lowercased()) }) != true {
                    result.append(argument + "=true")
                    index += 1
                    continue
                }
            }
            result.append(argument)
            index += 1
        }
        return result
    }

    func run() async throws {
        // Before the service's threads allocate (docs/DEPLOYMENT.md, "Memory").
        ServiceAllocator.tune(environment: ProcessInfo.processInfo.environment)
        var flags: [String: [String]] = [:]
        let single: [(String, String?)] = [
            ("bind", bind), ("workers", workers), ("queue", queue), ("fetch-ahead", fetchAhead), ("max-src-resolution", maxSrcResolution),
            ("max-src-bytes", maxSrcBytes), ("max-animation-frames", maxAnimationFrames),
            ("max-animation-frame-resolution", maxAnimationFrameResolution), ("max-result-dimension", maxResultDimension),
            ("max-chained-pipelines", maxChainedPipelines), ("ttl", ttl),
            ("auto-webp", autoWebP), ("auto-avif", autoAVIF), ("auto-jxl", autoJXL), ("jxl-effort", jxlEffort), ("avif-speed", avifSpeed), ("strip-color-profile", stripColorProfile), ("preserve-hdr", preserveHDR), ("cache-dir", cacheDir), ("cache-max-size", cacheMaxSize), ("cache-max-age", cacheMaxAge), ("local-root", localRoot), ("source-revalidate-after", sourceRevalidateAfter),
            ("avif-subsample", avifSubsample),
            ("signature-size", signatureSize), ("download-timeout", downloadTimeout), ("result-cache-bytes", resultCacheBytes),
            ("max-processing-time", maxProcessingTime), ("max-result-bytes", maxResultBytes),
            ("max-result-resolution", maxResultResolution), ("max-processing-memory", maxProcessingMemory), ("max-svg-time", maxSVGTime), ("max-source-memory", maxSourceMemory), ("sanitize-svg", sanitizeSVG),
            ("keep-alive-timeout", keepAliveTimeout), ("header-timeout", headerTimeout), ("first-byte-timeout", firstByteTimeout), ("max-clients", maxClients), ("fallback-image", fallbackImage), ("fallback-image-status", fallbackImageStatus), ("fallback-image-ttl", fallbackImageTTL),
            ("result-store", resultStore), ("result-store-timeout", resultStoreTimeout),
            ("watermark-path", watermarkPath), ("watermark-url", watermarkURL), ("watermark-data", watermarkData),
            ("watermark-opacity", watermarkOpacity), ("watermark-url-ttl", watermarkURLTTL),
            ("autoquality-method", autoqualityMethod), ("autoquality-target", autoqualityTarget), ("autoquality-min", autoqualityMin),
            ("autoquality-max", autoqualityMax), ("autoquality-allowed-error", autoqualityAllowedError),
            ("autoquality-format-min", autoqualityFormatMin), ("autoquality-format-max", autoqualityFormatMax),
            ("best-format-candidates", bestFormatCandidates), ("best-format-complexity-threshold", bestFormatComplexityThreshold),
            ("best-format-max-resolution", bestFormatMaxResolution), ("best-format-by-default", bestFormatByDefault),
            ("best-format-allow-skips", bestFormatAllowSkips),
            ("unsharp-masking-mode", unsharpMaskingMode), ("unsharp-masking-weight", unsharpMaskingWeight),
            ("unsharp-masking-divider", unsharpMaskingDivider),
            ("jpeg-progressive", jpegProgressive), ("jpeg-no-subsample", jpegNoSubsample), ("jpeg-trellis-quant", jpegTrellisQuant), ("jpeg-overshoot-deringing", jpegOvershootDeringing), ("jpeg-optimize-scans", jpegOptimizeScans), ("jpeg-quant-table", jpegQuantTable), ("png-interlaced", pngInterlaced), ("png-quantize", pngQuantize), ("png-quantization-colors", pngQuantizationColors), ("webp-compression", webpCompression), ("webp-smart-subsample", webpSmartSubsample), ("webp-preset", webpPreset),
            ("use-s3", useS3), ("s3-endpoint", s3Endpoint), ("s3-region", s3Region), ("s3-endpoint-use-path-style", s3PathStyle),
        ]
        for (name, value) in single { if let value { flags[name] = [value] } }
        let repeated: [(String, [String])] = [
            ("preset", preset), ("key", key), ("salt", salt), ("allow-source", allowSource),
            ("allow-network", allowNetwork), ("allow-address", allowAddress), ("s3-allowed-bucket", s3AllowedBucket),
            ("s3-denied-bucket", s3DeniedBucket),
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
