import Crypto
import Foundation
import Logging
import Synchronization
import WebImage

/// The image service's request handling, independent of the HTTP server (SPEC V-2 … V-8):
/// parse and verify the URL, fetch the source, answer `If-None-Match` without decoding, render
/// once per identical request on a bounded pool, keep results in a byte-bounded LRU.
public final class ImageService: Sendable {
    /// The configuration it runs with.
    public let configuration: ImageServiceConfiguration
    let signer: URLSigner?
    let sources: SourceStore
    let processor: ImageProcessor
    let results: ResultCache
    let gate: AdmissionGate
    let pool: ProcessingPool
    let renders = SingleFlight<String, RenderedResult>()
    let metrics: ServiceMetrics
    let now: @Sendable () -> Date
    private let draining = Mutex(false)
    private let decodes = SharedCount()

    /// Sources decoded since start (a 304 or a result-cache hit decodes nothing).
    public var decodeCount: Int { decodes.value }

    /// Whether the service is shutting down (`/health` answers 503).
    public var isDraining: Bool { draining.withLock { $0 } }

    /// Marks the service as shutting down.
    public func beginDraining() { draining.withLock { $0 = true } }

    /// A service with `configuration`.
    public init(configuration: ImageServiceConfiguration, now: @escaping @Sendable () -> Date = Date.init) {
        self.configuration = configuration
        signer = configuration.signer
        sources = SourceStore(configuration: configuration)
        processor = ImageProcessor(limits: configuration.limits)
        results = ResultCache(capacity: configuration.resultCacheBytes)
        gate = AdmissionGate(workers: configuration.workers, queue: configuration.queue)
        pool = ProcessingPool(name: "webimage.server", width: configuration.workers)
        metrics = ServiceMetrics()
        self.now = now
    }

    /// Stops the source downloader.
    public func shutdown() async {
        try? await sources.downloader.shutdown()
    }

    /// Requests holding an admission place now (running or waiting to run; SPEC V-8).
    public var admittedCount: Int { gate.count }

    /// Whether signing is on.
    public var isSigned: Bool { signer != nil }

    /// Answers `GET`/`HEAD` of `path` (percent-encoded, without query).
    public func respond(path: String, accept: String?, ifNoneMatch: String?, head: Bool = false) async -> ImageServiceResponse {
        do {
            var response = try await render(path: path, accept: accept, ifNoneMatch: ifNoneMatch)
            if head { response.body = Data() }
            return response
        } catch {
            let json = accept?.lowercased().contains("application/json") == true
            switch error {
            case let error as ImageServiceError: return .error(error, json: json)
            case is CancellationError: return .error(.unavailable, json: json)
            default: return .error(.unprocessable("internal error"), json: json)
            }
        }
    }

    /// Which output format a request gets, and whether it came from `Accept`.
    enum FormatChoice: Hashable {
        case fixed(OutputFormat)
        case negotiated(OutputFormat)
        case source
    }

    func chooseFormat(_ options: ProcessingOptions, request: ImageRequestPath, accept: String?) -> FormatChoice {
        if let format = options.format ?? request.extensionFormat { return .fixed(format) }
        let accepted = (accept ?? "").lowercased()
        if configuration.autoAVIF, accepted.contains("image/avif") { return .negotiated(.avif) }
        if configuration.autoWebP, accepted.contains("image/webp") { return .negotiated(.webp) }
        return .source
    }

    var negotiates: Bool { configuration.autoAVIF || configuration.autoWebP }

    private func render(path: String, accept: String?, ifNoneMatch: String?) async throws -> ImageServiceResponse {
        let request = try ImageRequestPath(path: path)
        if let signer, !signer.verify(signature: request.signature, path: request.signedPath) {
            throw ImageServiceError.badSignature
        }
        let options = try ProcessingOptions.parse(segments: request.optionSegments, presets: configuration.presets)
        if let expires = options.expires, Int64(now().timeIntervalSince1970) > expires { throw ImageServiceError.expired }
        try sources.checkAllowed(request.source)

        let choice = chooseFormat(options, request: request, accept: accept)
        // One place per request from fetch to encode: `workers` run, `queue` wait, the rest 429.
        guard gate.enter() else {
            metrics.queueRejected()
            throw ImageServiceError.queueFull(retryAfter: configuration.retryAfter)
        }
        metrics.setQueue(depth: gate.count)
        defer {
            gate.leave()
            metrics.setQueue(depth: gate.count)
        }
        // V-5: fetch, decode, process and encode together within the processing deadline.
        return try await withProcessingDeadline(seconds: configuration.processingTimeout) { [self] in
            try await produce(request: request, options: options, choice: choice, ifNoneMatch: ifNoneMatch)
        }
    }

    private func produce(request: ImageRequestPath, options: ProcessingOptions, choice: FormatChoice, ifNoneMatch: String?) async throws -> ImageServiceResponse {
        let downloadStart = ContinuousClock.now
        let source = try await sources.fetch(request.source)
        metrics.recordSource(layer: source.layer, bytes: source.data.count, duration: ContinuousClock.now - downloadStart)

        let sourceFormat = ImageFormat.detect(source.data)
        if options.raw {
            return ok(body: source.data, contentType: sourceFormat.mimeType, etag: etag(source, options, "raw"),
                      source: source, options: options, ext: sourceFormat.fileExtension, vary: false, request: request)
        }
        let format: OutputFormat
        switch choice {
        case let .fixed(fixed), let .negotiated(fixed): format = fixed
        case .source:
            guard sourceFormat != .unknown else { throw ImageServiceError.notAnImage }
            format = OutputFormat(sourceFormat) ?? .jpeg
        }
        let vary: Bool
        if case .fixed = choice { vary = false } else { vary = negotiates }
        let tag = etag(source, options, format.rawValue)
        if let ifNoneMatch, Self.matches(ifNoneMatch, tag) {
            var headers = [("ETag", tag), ("Cache-Control", "public, max-age=\(configuration.ttl)")]
            if vary { headers.append(("Vary", "Accept")) }
            metrics.recordResultCache(hit: true, layer: "not-modified")
            return ImageServiceResponse(status: 304, headers: headers, body: Data())
        }
        // skip_processing: same format in and out, listed → the source as is.
        if options.skipProcessing.contains(format), OutputFormat(sourceFormat) == format {
            return ok(body: source.data, contentType: format.imageFormat.mimeType, etag: tag, source: source,
                      options: options, ext: format.imageFormat.fileExtension, vary: vary, request: request)
        }
        let result: RenderedResult
        if let cached = results.value(for: tag) {
            metrics.recordResultCache(hit: true, layer: "memory")
            result = cached
        } else {
            metrics.recordResultCache(hit: false, layer: "memory")
            let maxResultBytes = configuration.limits.maxResultBytes
            result = try await renders.run(tag) { [processor, pool, results, metrics, decodes] in
                let rendered = try await pool.run { () throws -> RenderedResult in
                    _ = try processor.checkHeader(source.data)
                    decodes.increment()
                    let decodeStart = ContinuousClock.now
                    let image = try processor.decode(source.data, options: options, keepAnimation: format.isAnimatable)
                    metrics.recordStage("decode", ContinuousClock.now - decodeStart)
                    metrics.recordDecode(scaleDenominator: image.reduction?.denominator ?? 1)
                    let processStart = ContinuousClock.now
                    let transformed = try processor.transform(image, options: options)
                    metrics.recordStage("process", ContinuousClock.now - processStart)
                    let encodeStart = ContinuousClock.now
                    let body = try processor.encode(transformed, as: format, options: options)
                    metrics.recordStage("encode", ContinuousClock.now - encodeStart)
                    // V-5: the maximum result size, checked on the encoded bytes.
                    if body.count > maxResultBytes {
                        throw ImageServiceError.unprocessable("result is \(body.count) bytes, over the limit of \(maxResultBytes)")
                    }
                    return RenderedResult(body: body, format: format)
                }
                results.insert(rendered, for: tag)
                return rendered
            }
        }
        return ok(body: result.body, contentType: format.imageFormat.mimeType, etag: tag, source: source,
                  options: options, ext: format.imageFormat.fileExtension, vary: vary, request: request)
    }

    private func ok(body: Data, contentType: String, etag: String, source: SourceImage, options: ProcessingOptions,
                    ext: String, vary: Bool, request: ImageRequestPath) -> ImageServiceResponse {
        var headers: [(String, String)] = [
            ("Content-Type", contentType),
            ("Cache-Control", "public, max-age=\(configuration.ttl)"),
            ("ETag", etag),
            ("Content-Disposition", Self.disposition(options: options, source: request.source, ext: ext)),
        ]
        if vary { headers.append(("Vary", "Accept")) }
        if let lastModified = source.lastModified { headers.append(("Last-Modified", lastModified)) }
        metrics.recordBytesOut(body.count)
        return ImageServiceResponse(status: 200, headers: headers, body: body)
    }

    /// A strong ETag from the source identity, the canonical options and the output format.
    func etag(_ source: SourceImage, _ options: ProcessingOptions, _ format: String) -> String {
        let text = "\(source.identity)|\(options.canonicalForm)|\(format)"
        let digest = SHA256.hash(data: Data(text.utf8))
        return "\"" + Base64URL.encode(digest.prefix(18)) + "\""
    }

    static func matches(_ ifNoneMatch: String, _ tag: String) -> Bool {
        ifNoneMatch.split(separator: ",").contains { candidate in
            let trimmed = candidate.trimmingCharacters(in: .whitespaces)
            return trimmed == "*" || trimmed == tag || trimmed == "W/" + tag
        }
    }

    static func disposition(options: ProcessingOptions, source: String, ext: String) -> String {
        var stem = options.filename ?? {
            let last = source.split(separator: "?").first.map(String.init)?.split(separator: "/").last.map(String.init) ?? "image"
            return last.split(separator: ".").first.map(String.init) ?? "image"
        }()
        stem = String(stem.filter { $0.isASCII && ($0.isLetter || $0.isNumber || "-_. ".contains($0)) }.prefix(200))
        if stem.isEmpty { stem = "image" }
        let kind = options.returnAttachment == true ? "attachment" : "inline"
        return "\(kind); filename=\"\(stem).\(ext)\""
    }
}
