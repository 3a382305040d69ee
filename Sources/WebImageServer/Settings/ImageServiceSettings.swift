import Foundation
import WebImage

/// The service's settings in one table (SPEC V-1): each is a command-line flag `--NAME`, an
/// environment variable `WEBIMAGE_NAME` (upper case, `-` → `_`) and a configuration-file line
/// `NAME = VALUE`. Flags win over the environment, which wins over the file.
public enum ImageServiceSettings {
    /// One setting.
    public struct Setting: Sendable {
        /// The flag and file name (`max-src-bytes`).
        public let name: String
        /// What it does.
        public let meaning: String
        /// The default, as text.
        public let defaultValue: String
        /// Whether it may be given several times (`key`, `salt`, `preset`, …).
        public let repeatable: Bool

        /// The environment variable: `WEBIMAGE_` + upper-cased name with `_` for `-`.
        public var environmentName: String { "WEBIMAGE_" + name.uppercased().replacingOccurrences(of: "-", with: "_") }
    }

    /// Every setting.
    public static let all: [Setting] = [
        Setting(name: "bind", meaning: "HOST:PORT to listen on; port 0 picks a free port", defaultValue: "127.0.0.1:8080", repeatable: false),
        Setting(name: "workers", meaning: "requests processed at once", defaultValue: "the core count", repeatable: false),
        Setting(name: "queue", meaning: "requests allowed to wait; beyond, 429", defaultValue: "64", repeatable: false),
        Setting(name: "fetch-ahead", meaning: "requests that may fetch their source while every worker is busy (each holds its source until rendered; the others wait unfetched, 503 with Retry-After when they cannot start in time); 0 = fetch only for a free worker", defaultValue: "the worker count", repeatable: false),
        Setting(name: "max-source-memory", meaning: "bytes of sources requests may hold at once, downloads in flight counted at max-src-bytes; a request waits for room before fetching, and gets 503 with Retry-After when it cannot start in time", defaultValue: "1073741824, or (workers + 1) × max-src-bytes when larger", repeatable: false),
        Setting(name: "max-src-resolution", meaning: "largest source in megapixels", defaultValue: "50", repeatable: false),
        Setting(name: "max-src-bytes", meaning: "largest source in bytes", defaultValue: "67108864", repeatable: false),
        Setting(name: "max-animation-frames", meaning: "most frames of an animated source", defaultValue: "100", repeatable: false),
        Setting(name: "max-animation-frame-resolution", meaning: "largest frame of an animated source in megapixels; 0 = none", defaultValue: "0", repeatable: false),
        Setting(name: "max-result-dimension", meaning: "largest result width or height in pixels (then 400)", defaultValue: "16384", repeatable: false),
        Setting(name: "max-chained-pipelines", meaning: "most pipelines one URL may chain with /-/, presets' included (then 400); 0 = no limit", defaultValue: "8", repeatable: false),
        Setting(name: "ttl", meaning: "Cache-Control max-age in seconds", defaultValue: "31536000", repeatable: false),
        Setting(name: "auto-webp", meaning: "answer WebP to clients that accept it", defaultValue: "true", repeatable: false),
        Setting(name: "auto-avif", meaning: "answer AVIF to clients that accept it", defaultValue: "true", repeatable: false),
        Setting(name: "auto-jxl", meaning: "answer JPEG XL to clients that accept it (before AVIF)", defaultValue: "false", repeatable: false),
        Setting(name: "jxl-effort", meaning: "JPEG XL encoding effort, 1 (fastest) to 9", defaultValue: "4", repeatable: false),
        Setting(name: "avif-speed", meaning: "AVIF encoder speed, 0 (slowest) to 9; auto = 9 up to 1.2 MP results, 8 above", defaultValue: "auto", repeatable: false),
        Setting(name: "avif-subsample", meaning: "AVIF chroma subsampling: auto (4:2:0 below quality 90, 4:4:4 from it), on (always 4:2:0) or off (always 4:4:4); the URL's avifo overrides", defaultValue: "auto", repeatable: false),
        Setting(name: "strip-color-profile", meaning: "convert sources to sRGB and write no colour profile; false keeps the source's colours and profile (URL option scp overrides)", defaultValue: "true", repeatable: false),
        Setting(name: "preserve-hdr", meaning: "keep a PQ or HLG source's HDR signal and bit depth in PNG, AVIF and JPEG XL results, and write JPEG results as SDR plus a gain map computed from it, instead of tone-mapping to SDR (URL option preserve_hdr overrides)", defaultValue: "false", repeatable: false),
        Setting(name: "cache-dir", meaning: "source cache directory", defaultValue: "none", repeatable: false),
        Setting(name: "cache-max-size", meaning: "bytes the source cache may hold; past it the oldest half is removed (0 = unbounded)", defaultValue: "1073741824", repeatable: false),
        Setting(name: "cache-max-age", meaning: "seconds a source stays in the source cache after it was written", defaultValue: "604800", repeatable: false),
        Setting(name: "source-revalidate-after", meaning: "seconds a cached source is used before revalidating it with the origin", defaultValue: "60", repeatable: false),
        Setting(name: "local-root", meaning: "root of local:// sources", defaultValue: "none (local:// refused)", repeatable: false),
        Setting(name: "preset", meaning: "NAME=OPTIONS preset; `default` applies to every URL", defaultValue: "none", repeatable: true),
        Setting(name: "key", meaning: "hex signing key (pairs with the salt at the same position)", defaultValue: "none (unsigned)", repeatable: true),
        Setting(name: "salt", meaning: "hex signing salt", defaultValue: "none", repeatable: true),
        Setting(name: "signature-size", meaning: "bytes of HMAC kept in signatures (1-32)", defaultValue: "32", repeatable: false),
        Setting(name: "allow-source", meaning: "allowed source URL prefix", defaultValue: "any", repeatable: true),
        Setting(name: "use-s3", meaning: "read s3://bucket/key sources, with the credentials of the AWS_* variables or ~/.aws files", defaultValue: "false", repeatable: false),
        Setting(name: "s3-endpoint", meaning: "S3 endpoint URL (MinIO, moto, …) of s3:// sources and an s3:// result store", defaultValue: "AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL, else AWS", repeatable: false),
        Setting(name: "s3-region", meaning: "S3 region requests are signed for", defaultValue: "AWS_REGION, AWS_DEFAULT_REGION, else us-east-1", repeatable: false),
        Setting(name: "s3-endpoint-use-path-style", meaning: "path-style S3 URLs (endpoint/bucket/key); false = virtual-host style", defaultValue: "true with an endpoint", repeatable: false),
        Setting(name: "s3-allowed-bucket", meaning: "bucket s3:// sources may name (not applied to the result store's bucket)", defaultValue: "any", repeatable: true),
        Setting(name: "s3-denied-bucket", meaning: "bucket s3:// sources may not name (not applied to the result store's bucket)", defaultValue: "none", repeatable: true),
        Setting(name: "allow-network", meaning: "address class allowed for sources: loopback, private, link-local", defaultValue: "none (public only)", repeatable: true),
        Setting(name: "allow-address", meaning: "CIDR range allowed for sources", defaultValue: "none", repeatable: true),
        Setting(name: "download-timeout", meaning: "seconds a source download may take (then 504)", defaultValue: "10", repeatable: false),
        Setting(name: "max-processing-time", meaning: "seconds a request may take from fetch to encode (then 504)", defaultValue: "30", repeatable: false),
        Setting(name: "max-result-bytes", meaning: "largest encoded result in bytes (then 422)", defaultValue: "67108864", repeatable: false),
        Setting(name: "max-result-resolution", meaning: "largest result in megapixels, checked before processing (then 400)", defaultValue: "50", repeatable: false),
        Setting(name: "max-processing-memory", meaning: "bytes of result-sized canvases one request may hold while processing (then 400)", defaultValue: "1073741824", repeatable: false),
        Setting(name: "max-svg-time", meaning: "seconds an SVG source may take to draw (then 422); its elements (100000) and filter primitives (256) are counted before parsing (then 413)", defaultValue: "10", repeatable: false),
        Setting(name: "sanitize-svg", meaning: "remove scripts, event handlers and external references from SVG answered as SVG", defaultValue: "true", repeatable: false),
        Setting(name: "result-cache-bytes", meaning: "bytes of results kept in memory", defaultValue: "67108864", repeatable: false),
        Setting(name: "result-store", meaning: "where rendered results and /info answers are also kept for other instances and restarts: a directory (/path or file:///path) every instance mounts, or s3://bucket/prefix at the S3 endpoint of the s3-* settings and AWS credentials (use-s3 not needed; the bucket rules do not apply)", defaultValue: "none", repeatable: false),
        Setting(name: "result-store-timeout", meaning: "seconds a result-store lookup may take before the request goes on without it", defaultValue: "1", repeatable: false),
        Setting(name: "keep-alive-timeout", meaning: "seconds an idle connection is kept open", defaultValue: "75", repeatable: false),
        Setting(name: "max-clients", meaning: "client connections held at once; more wait to be accepted (lowered to what the file descriptor limit allows)", defaultValue: "2048", repeatable: false),
        Setting(name: "header-timeout", meaning: "seconds a request's head may take to arrive after its first byte (then the connection is closed)", defaultValue: "10", repeatable: false),
        Setting(name: "first-byte-timeout", meaning: "seconds a new connection may stay silent before its first byte (then it is closed)", defaultValue: "5", repeatable: false),
        Setting(name: "fallback-image", meaning: "image file answered (processed like the source) when a source cannot be had", defaultValue: "none (errors)", repeatable: false),
        Setting(name: "fallback-image-status", meaning: "status of a fallback answer; 0 = the error's status", defaultValue: "200", repeatable: false),
        Setting(name: "fallback-image-ttl", meaning: "Cache-Control max-age of a fallback answer in seconds", defaultValue: "the ttl", repeatable: false),
        Setting(name: "watermark-path", meaning: "image file of the watermark URL option (wm); read at start", defaultValue: "none (wm does nothing)", repeatable: false),
        Setting(name: "watermark-url", meaning: "source URL of the watermark image, fetched like a source (allow-list, address policy, byte limit) at the first wm request", defaultValue: "none", repeatable: false),
        Setting(name: "watermark-data", meaning: "base64 of the watermark image file", defaultValue: "none", repeatable: false),
        Setting(name: "watermark-opacity", meaning: "base opacity of the watermark, 0-1, multiplied by the wm option's", defaultValue: "1", repeatable: false),
        Setting(name: "watermark-url-ttl", meaning: "seconds a watermark fetched from watermark-url is used before it is fetched again", defaultValue: "3600", repeatable: false),
    ] + autoqualitySettings + bestFormatSettings + unsharpMaskingSettings + encoderOptionSettings

    /// What a bad setting is.
    public struct Problem: Error, CustomStringConvertible, Sendable {
        /// The message.
        public let description: String
    }

    /// Values from a configuration file: `name = value` lines, `#` comments, blank lines.
    public static func values(fromConfigFile text: String) throws(Problem) -> [String: [String]] {
        var values: [String: [String]] = [:]
        for (number, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            guard let equals = line.firstIndex(of: "=") else { throw Problem(description: "line \(number + 1): expected NAME = VALUE") }
            let name = line[..<equals].trimmingCharacters(in: .whitespaces)
            let value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            guard all.contains(where: { $0.name == name }) else { throw Problem(description: "line \(number + 1): unknown setting '\(name)'") }
            values[name, default: []].append(value)
        }
        return values
    }

    /// Values from `WEBIMAGE_*` variables; repeatable ones take comma-separated lists.
    public static func values(fromEnvironment environment: [String: String]) -> [String: [String]] {
        var values: [String: [String]] = [:]
        for setting in all {
            guard let value = environment[setting.environmentName] else { continue }
            values[setting.name] = setting.repeatable ? value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } : [value]
        }
        return values
    }

    /// `overrides` on top of `base`, setting by setting.
    public static func merge(_ base: [String: [String]], _ overrides: [String: [String]]) -> [String: [String]] {
        base.merging(overrides) { _, new in new }
    }

    /// The configuration and bind address the values describe. `environment` (default: the
    /// process's) gives the AWS credentials, region and endpoint of `use-s3`.
    public static func configuration(
        from values: [String: [String]], environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(Problem) -> (ImageServiceConfiguration, host: String, port: Int) {
        var configuration = ImageServiceConfiguration()
        func one(_ name: String) -> String? { values[name]?.last }
        func int(_ name: String, _ range: ClosedRange<Int>) throws(Problem) -> Int? {
            guard let text = one(name) else { return nil }
            guard let value = Int(text), range.contains(value) else { throw Problem(description: "\(name): '\(text)' is not a number in \(range)") }
            return value
        }
        func bool(_ name: String) throws(Problem) -> Bool? {
            guard let text = one(name) else { return nil }
            switch text.lowercased() {
            case "1", "t", "true", "yes", "on": return true
            case "0", "f", "false", "no", "off": return false
            default: throw Problem(description: "\(name): '\(text)' is not true or false")
            }
        }
        var host = "127.0.0.1", port = 8080
        if let bind = one("bind") {
            guard let colon = bind.lastIndex(of: ":"), let parsed = Int(bind[bind.index(after: colon)...]), (0...65535).contains(parsed) else {
                throw Problem(description: "bind: expected HOST:PORT, got '\(bind)'")
            }
            host = String(bind[..<colon]).trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
            port = parsed
        }
        if let value = try int("workers", 1...1024) { configuration.workers = value }
        if let value = try int("queue", 0...1_000_000) { configuration.queue = value }
        if let value = try int("fetch-ahead", 0...1_000_000) { configuration.fetchAhead = value }
        if let value = try int("max-source-memory", 1...Int.max) { configuration.maxSourceMemory = value }
        if let text = one("max-src-resolution") {
            guard let megapixels = Double(text), megapixels > 0, megapixels <= 10_000 else { throw Problem(description: "max-src-resolution: '\(text)' is not megapixels") }
            configuration.limits.maxSourcePixels = Int(megapixels * 1_000_000)
        }
        if let value = try int("max-src-bytes", 1...Int(Int32.max)) { configuration.limits.maxSourceBytes = value }
        if let value = try int("max-animation-frames", 1...100_000) { configuration.limits.maxAnimationFrames = value }
        if let text = one("max-animation-frame-resolution") {
            guard let megapixels = Double(text), megapixels >= 0, megapixels <= 10_000 else {
                throw Problem(description: "max-animation-frame-resolution: '\(text)' is not megapixels")
            }
            configuration.limits.maxAnimationFramePixels = Int(megapixels * 1_000_000)
        }
        if let value = try int("max-result-dimension", 1...1_048_576) { configuration.limits.maxResultDimension = value }
        if let value = try int("max-chained-pipelines", 0...1_000) { configuration.maxChainedPipelines = value }
        if let value = try int("ttl", 0...Int(Int32.max)) { configuration.ttl = value }
        if let value = try bool("auto-webp") { configuration.autoWebP = value }
        if let value = try bool("auto-avif") { configuration.autoAVIF = value }
        if let value = try bool("auto-jxl") { configuration.autoJXL = value }
        if let value = try int("jxl-effort", 1...9) { configuration.jxlEffort = value }
        if one("avif-speed") != "auto", let value = try int("avif-speed", 0...9) { configuration.avifSpeed = value }
        if let text = one("avif-subsample") {
            do { configuration.avifOptions = try AVIFOptions.parse([text], option: "avif-subsample") } catch { throw Problem(description: "\(error)") }
        }
        if let value = try bool("strip-color-profile") { configuration.stripColorProfile = value }
        if let value = try bool("preserve-hdr") { configuration.preserveHDR = value }
        try applyAutoquality(values, to: &configuration)
        try applyBestFormat(values, to: &configuration)
        try applyUnsharpMasking(values, to: &configuration)
        try applyEncoderOptions(values, to: &configuration)
        if let value = one("cache-dir") { configuration.cacheDirectory = URL(fileURLWithPath: value, isDirectory: true) }
        if let value = try int("cache-max-size", 0...Int.max) { configuration.cacheMaxSize = value }
        if let text = one("cache-max-age") {
            guard let seconds = Double(text), seconds > 0 else { throw Problem(description: "cache-max-age: '\(text)' is not seconds") }
            configuration.cacheMaxAge = seconds
        }
        if let text = one("source-revalidate-after") {
            guard let seconds = Double(text), seconds >= 0 else { throw Problem(description: "source-revalidate-after: '\(text)' is not seconds") }
            configuration.sourceRevalidateAfter = seconds
        }
        if let value = one("local-root") { configuration.localRoot = URL(fileURLWithPath: value, isDirectory: true) }
        for preset in values["preset"] ?? [] {
            do { try configuration.presets.define(preset) } catch { throw Problem(description: "preset: \(error)") }
        }
        let keys = values["key"] ?? [], salts = values["salt"] ?? []
        guard keys.count == salts.count else { throw Problem(description: "key/salt: give as many salts as keys (\(keys.count) keys, \(salts.count) salts)") }
        for (key, salt) in zip(keys, salts) {
            guard let pair = URLSigner.KeyPair(hexKey: key, hexSalt: salt) else { throw Problem(description: "key/salt: not hex") }
            configuration.keyPairs.append(pair)
        }
        if let value = try int("signature-size", 1...32) { configuration.signatureSize = value }
        configuration.allowedSourcePrefixes = values["allow-source"] ?? []
        if try bool("use-s3") == true {
            configuration.s3 = try s3Configuration(
                values, endpoint: one("s3-endpoint"), region: one("s3-region"), pathStyle: try bool("s3-endpoint-use-path-style"),
                environment: environment)
        }
        for network in values["allow-network"] ?? [] {
            switch network {
            case "loopback": configuration.addressPolicy.deniedClasses.remove(.loopback)
            case "private": configuration.addressPolicy.deniedClasses.subtract([.privateNetwork, .carrierGradeNAT])
            case "link-local": configuration.addressPolicy.deniedClasses.remove(.linkLocal)
            default: throw Problem(description: "allow-network: '\(network)' is not loopback, private or link-local")
            }
        }
        for text in values["allow-address"] ?? [] {
            guard let range = IPAddressRange(text) else { throw Problem(description: "allow-address: '\(text)' is not a CIDR range") }
            configuration.addressPolicy.allowedRanges.append(range)
        }
        if let text = one("download-timeout") {
            guard let seconds = Double(text), seconds > 0, seconds <= 3600 else { throw Problem(description: "download-timeout: '\(text)' is not seconds") }
            configuration.downloadTimeout = seconds
        }
        if let text = one("max-processing-time") {
            guard let seconds = Double(text), seconds > 0, seconds <= 3600 else { throw Problem(description: "max-processing-time: '\(text)' is not seconds") }
            configuration.processingTimeout = seconds
        }
        if let value = try int("max-result-bytes", 1...Int.max) { configuration.limits.maxResultBytes = value }
        if let text = one("max-result-resolution") {
            guard let megapixels = Double(text), megapixels > 0, megapixels <= 10_000 else {
                throw Problem(description: "max-result-resolution: '\(text)' is not megapixels")
            }
            configuration.limits.maxResultPixels = Int(megapixels * 1_000_000)
        }
        if let value = try int("max-processing-memory", 1_048_576...Int.max) { configuration.limits.maxProcessingBytes = value }
        if let value = try int("result-cache-bytes", 0...Int.max) { configuration.resultCacheBytes = value }
        if let text = one("max-svg-time") {
            guard let seconds = Double(text), seconds > 0, seconds <= 3600 else { throw Problem(description: "max-svg-time: '\(text)' is not seconds") }
            configuration.limits.svgBudget.maxDuration = seconds
        }
        if let value = try bool("sanitize-svg") { configuration.sanitizeSVG = value }
        if let text = one("keep-alive-timeout") {
            guard let seconds = Double(text), seconds > 0, seconds <= 3600 else { throw Problem(description: "keep-alive-timeout: '\(text)' is not seconds") }
            configuration.keepAliveTimeout = seconds
        }
        if let value = try int("max-clients", 1...1_000_000) { configuration.maxClients = value }
        if let text = one("header-timeout") {
            guard let seconds = Double(text), seconds > 0, seconds <= 3600 else { throw Problem(description: "header-timeout: '\(text)' is not seconds") }
            configuration.headerTimeout = seconds
        }
        if let text = one("first-byte-timeout") {
            guard let seconds = Double(text), seconds > 0, seconds <= 3600 else { throw Problem(description: "first-byte-timeout: '\(text)' is not seconds") }
            configuration.firstByteTimeout = seconds
        }
        if let path = one("fallback-image") {
            // Checked now, not at the first failing request: a typo should stop the start.
            let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int
            guard let size, size <= configuration.limits.maxSourceBytes, let data = FileManager.default.contents(atPath: path) else {
                throw Problem(description: "fallback-image: cannot read '\(path)' (or it is over max-src-bytes)")
            }
            guard ImageFormat.detect(data) != .unknown else { throw Problem(description: "fallback-image: '\(path)' is not an image") }
            configuration.fallbackImage = data
        }
        if let value = try int("fallback-image-status", 0...599) {
            guard value == 0 || value >= 200 else { throw Problem(description: "fallback-image-status: '\(value)' is not 0 or an HTTP status") }
            configuration.fallbackImageStatus = value
        }
        if let value = try int("fallback-image-ttl", 0...Int(Int32.max)) { configuration.fallbackImageTTL = value }
        if let text = one("result-store-timeout") {
            guard let seconds = Double(text), seconds > 0, seconds <= 3600 else { throw Problem(description: "result-store-timeout: '\(text)' is not seconds") }
            configuration.resultStoreTimeout = seconds
        }
        if let text = one("result-store") {
            let timeout = configuration.resultStoreTimeout, s3 = configuration.s3
            configuration.resultStore = try resultStore(text, maxEntryBytes: configuration.limits.maxResultBytes, timeout: timeout) {
                () throws(Problem) -> S3Configuration in
                if let s3 { return s3 }
                return try s3Configuration(
                    values, endpoint: one("s3-endpoint"), region: one("s3-region"), pathStyle: try bool("s3-endpoint-use-path-style"),
                    environment: environment)
            }
        }
        try applyWatermark(values, to: &configuration)
        return (configuration, host, port)
    }

    /// The result store a `result-store` value names: a directory path or `file://` URL (which
    /// must exist and be a directory), or an `s3://bucket/prefix` location at the endpoint, with
    /// the credentials, of the `s3-*` settings and the AWS variables (`s3`; `use-s3` is not
    /// needed: it turns on `s3://` sources, and the bucket rules for sources do not apply to the
    /// store). Each store request may take `timeout` × 10 seconds (at least 10), as writes do.
    static func resultStore(
        _ text: String, maxEntryBytes: Int, timeout: Double, s3: () throws(Problem) -> S3Configuration
    ) throws(Problem) -> any ResultStore {
        let lowered = text.lowercased()
        if lowered.hasPrefix("s3://") {
            let configuration = try s3()
            do {
                return try S3ResultStore(url: text, configuration: configuration, maxEntryBytes: maxEntryBytes, timeout: max(10, timeout * 10))
            } catch {
                throw Problem(description: "result-store: \(error)")
            }
        }
        var path = text
        if lowered.hasPrefix("file://") {
            guard let url = URL(string: text), url.isFileURL, !url.path.isEmpty else { throw Problem(description: "result-store: '\(text)' is not a file:// URL") }
            path = url.path
        } else if let colon = text.firstIndex(of: ":"), let slash = text.firstIndex(of: "/"), colon < slash {
            throw Problem(description: "result-store: '\(text)' is not a directory or file:// URL")
        }
        var isDirectory: ObjCBool = false
        guard !path.isEmpty, FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw Problem(description: "result-store: '\(path)' is not an existing directory")
        }
        return DirectoryResultStore(directory: URL(fileURLWithPath: path, isDirectory: true), maxEntryBytes: maxEntryBytes)
    }

    /// The S3 settings of `use-s3` and of an `s3://` result store: the AWS variables and files,
    /// then the `s3-*` settings.
    private static func s3Configuration(
        _ values: [String: [String]], endpoint: String?, region: String?, pathStyle: Bool?, environment: [String: String]
    ) throws(Problem) -> S3Configuration {
        let settings: AWSSettings
        do {
            settings = try AWSSettings.resolve(environment: environment)
        } catch {
            throw Problem(description: "AWS settings: \(error)")
        }
        var s3 = S3Configuration(settings: settings)
        if let endpoint {
            guard let url = URL(string: endpoint), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host?.isEmpty == false
            else { throw Problem(description: "s3-endpoint: '\(endpoint)' is not an http or https URL") }
            s3.endpoint = url
        }
        if let region {
            guard !region.isEmpty, region.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" }) else {
                throw Problem(description: "s3-region: '\(region)' is not a region name")
            }
            s3.region = region
        }
        if let pathStyle { s3.pathStyle = pathStyle }
        if let allowed = values["s3-allowed-bucket"], !allowed.isEmpty { s3.allowedBuckets = Set(allowed) }
        s3.deniedBuckets = Set(values["s3-denied-bucket"] ?? [])
        return s3
    }
}
