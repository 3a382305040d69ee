import Crypto
import Foundation
import HTTPTypes
import Logging
import NIOCore
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
    /// Bounds the requests holding a fetched source (`fetchAhead`).
    let slots: SourceSlots
    let renders = SingleFlight<String, RenderedResult>()
    let metrics: ServiceMetrics
    let now: @Sendable () -> Date
    /// The fallback image as a source, when one is configured (SPEC V-7).
    let fallback: SourceImage?
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
        processor = ImageProcessor(limits: configuration.limits, stripColorProfile: configuration.stripColorProfile)
        results = ResultCache(capacity: configuration.resultCacheBytes)
        gate = AdmissionGate(workers: configuration.workers, queue: configuration.queue)
        pool = ProcessingPool(name: "webimage.server", width: configuration.workers)
        slots = SourceSlots(workers: configuration.workers, fetchAhead: configuration.fetchAhead)
        metrics = ServiceMetrics()
        fallback = configuration.fallbackImage.map {
            SourceImage(data: $0, identity: "fallback-" + SourceStore.hash($0), lastModified: nil, layer: "fallback", freshFor: 0)
        }
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
        var reply = await reply(path: path, accept: accept, ifNoneMatch: ifNoneMatch)
        if head { reply.body = ByteBuffer() }
        return ImageServiceResponse(reply)
    }

    /// The answer to `path`: from the result-cache index when the path was answered before,
    /// else parsed, verified, fetched and rendered.
    func reply(path: String, accept: String?, ifNoneMatch: String?) async -> ServiceReply {
        if let known = knownReply(path: path, accept: accept, ifNoneMatch: ifNoneMatch) { return known }
        return await freshReply(path: path, accept: accept, ifNoneMatch: ifNoneMatch)
    }

    /// The result-cache hit path: what `path` answered last time (for this `Accept` when it
    /// chooses the format), while its source counts as unchanged and the URL has not expired;
    /// `nil` otherwise. No parsing, signature check, fetch or hashing: a path is only
    /// remembered after all of them passed, and everything they depend on is fixed at start.
    func knownReply(path: String, accept: String?, ifNoneMatch: String?) -> ServiceReply? {
        guard let (answer, result) = results.answer(for: path, variant: { variant(accept: accept) }) else { return nil }
        guard ContinuousClock.now < answer.freshUntil else { return nil }
        if let expires = answer.expires, Int64(now().timeIntervalSince1970) > expires { return nil }
        if let ifNoneMatch, Self.matches(ifNoneMatch, answer.etag) {
            metrics.recordResultCache(hit: true, layer: "not-modified")
            return ServiceReply(status: 304, fields: answer.notModifiedFields, body: ByteBuffer())
        }
        metrics.recordResultCache(hit: true, layer: "memory")
        metrics.recordBytesOut(result.body.readableBytes)
        return ServiceReply(status: 200, fields: answer.fields, body: result.body)
    }

    /// The full path: errors become their status and plain-text (or JSON) body.
    func freshReply(path: String, accept: String?, ifNoneMatch: String?) async -> ServiceReply {
        do {
            return try await render(path: path, accept: accept, ifNoneMatch: ifNoneMatch)
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
        switch variant(accept: accept) {
        case .avif: return .negotiated(.avif)
        case .webp: return .negotiated(.webp)
        case .any, .other: return .source
        }
    }

    /// What `Accept` chooses when the URL does not fix the format.
    func variant(accept: String?) -> FormatVariant {
        guard negotiates else { return .any }
        let accepted = (accept ?? "").lowercased()
        if configuration.autoAVIF, accepted.contains("image/avif") { return .avif }
        if configuration.autoWebP, accepted.contains("image/webp") { return .webp }
        return .other
    }

    var negotiates: Bool { configuration.autoAVIF || configuration.autoWebP }

    private func render(path: String, accept: String?, ifNoneMatch: String?) async throws -> ServiceReply {
        var parsed = try ImageRequestPath(path: path)
        if let signer, !signer.verify(signature: parsed.signature, path: parsed.signedPath) {
            throw ImageServiceError.badSignature
        }
        // The allow-list is checked against, and the origin sent, the same normalised URL.
        parsed.source = try SourceURLNormalizer.normalize(parsed.source)
        let request = parsed
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
        // V-5: fetch, decode, process and encode together within the processing deadline. The
        // answer goes at the deadline; the place is given back only when the work has stopped
        // (it stops within a row of its current step), so the places bound the work running.
        return try await withProcessingDeadline(
            seconds: configuration.processingTimeout,
            whenStopped: { [gate, metrics] in
                gate.leave()
                metrics.setQueue(depth: gate.count)
            }
        ) { [self] in
            try await produce(path: path, request: request, options: options, choice: choice, ifNoneMatch: ifNoneMatch)
        }
    }

    /// The source, or the fallback image when the source cannot be fetched and one is
    /// configured (then also the status to answer with).
    private func fetchSource(_ request: ImageRequestPath) async throws -> (SourceImage, fallbackStatus: Int?) {
        let downloadStart = ContinuousClock.now
        do {
            let source = try await sources.fetch(request.source)
            metrics.recordSource(layer: source.layer, bytes: source.data.count, duration: ContinuousClock.now - downloadStart)
            guard ImageFormat.detect(source.data) != .unknown else { throw ImageServiceError.notAnImage }
            return (source, nil)
        } catch let error as ImageServiceError {
            guard let fallback, error.isSourceFailure else { throw error }
            let status = configuration.fallbackImageStatus == 0 ? error.status : configuration.fallbackImageStatus
            return (fallback, status)
        }
    }

    private func produce(path: String, request: ImageRequestPath, options: ProcessingOptions, choice: FormatChoice, ifNoneMatch: String?) async throws -> ServiceReply {
        // From fetch until the answer is encoded, the request holds its source: a slot.
        try await slots.acquire()
        defer { slots.release() }
        let (source, fallbackStatus) = try await fetchSource(request)
        let sourceFormat = ImageFormat.detect(source.data)
        if options.raw {
            return try answer(body: passThroughBody(source, format: sourceFormat), contentType: sourceFormat.mimeType, etag: etag(source, options, "raw"),
                              source: source, options: options, ext: sourceFormat.fileExtension, vary: false, request: request,
                              ifNoneMatch: ifNoneMatch, fallbackStatus: fallbackStatus)
        }
        let format: OutputFormat
        switch choice {
        case let .fixed(fixed), let .negotiated(fixed): format = fixed
        case .source: format = OutputFormat(sourceFormat) ?? .jpeg
        }
        let vary: Bool
        if case .fixed = choice { vary = false } else { vary = negotiates }
        let tag = etag(source, options, format.rawValue)
        // skip_processing: same format in and out, listed → the source as is.
        if options.skipProcessing.contains(format), OutputFormat(sourceFormat) == format {
            return try answer(body: passThroughBody(source, format: sourceFormat), contentType: format.imageFormat.mimeType, etag: tag, source: source,
                              options: options, ext: format.imageFormat.fileExtension, vary: vary, request: request,
                              ifNoneMatch: ifNoneMatch, fallbackStatus: fallbackStatus)
        }
        if fallbackStatus == nil, let ifNoneMatch, Self.matches(ifNoneMatch, tag) {
            metrics.recordResultCache(hit: true, layer: "not-modified")
            return ServiceReply(status: 304, fields: notModifiedFields(etag: tag, vary: vary), body: ByteBuffer())
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
                    let header = try processor.checkHeader(source.data)
                    // V-5: the result's size and working memory, from the plan, before decoding.
                    try processor.checkPlan(header, options: options, keepAnimation: format.isAnimatable)
                    decodes.increment()
                    let decodeStart = ContinuousClock.now
                    let image = try processor.decode(source.data, options: options, keepAnimation: format.isAnimatable)
                    metrics.recordStage("decode", ContinuousClock.now - decodeStart)
                    metrics.recordDecode(scaleDenominator: image.reduction?.denominator ?? 1)
                    // Deadline passed or every client gone: stop between steps.
                    if WorkCancellation.isCurrentCancelled { throw ImageServiceError.timedOut }
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
                    return RenderedResult(body: ByteBuffer(bytes: body), format: format)
                }
                results.insert(rendered, for: tag)
                return rendered
            }
        }
        let reply = try answer(body: result.body, contentType: format.imageFormat.mimeType, etag: tag, source: source,
                               options: options, ext: format.imageFormat.fileExtension, vary: vary, request: request,
                               ifNoneMatch: nil, fallbackStatus: fallbackStatus)
        if fallbackStatus == nil, source.freshFor > 0 {
            // The next identical request takes the hit path (``knownReply``).
            let variant: FormatVariant
            switch choice {
            case .fixed: variant = .any
            case let .negotiated(format): variant = format == .avif ? .avif : .webp
            case .source: variant = negotiates ? .other : .any
            }
            let known = KnownAnswer(
                etag: tag, fields: reply.fields, notModifiedFields: notModifiedFields(etag: tag, vary: vary),
                freshUntil: ContinuousClock.now + .milliseconds(Int64(source.freshFor * 1000)), expires: options.expires)
            results.remember(known, for: path, variant: variant)
        }
        return reply
    }

    /// A 200 (or the fallback's status) with the image headers, or a 304 when `ifNoneMatch`
    /// names `etag`. A fallback answer carries no validators and its own cache lifetime.
    private func answer(body: ByteBuffer, contentType: String, etag: String, source: SourceImage, options: ProcessingOptions,
                        ext: String, vary: Bool, request: ImageRequestPath, ifNoneMatch: String?, fallbackStatus: Int?) throws -> ServiceReply {
        if fallbackStatus == nil, let ifNoneMatch, Self.matches(ifNoneMatch, etag) {
            metrics.recordResultCache(hit: true, layer: "not-modified")
            return ServiceReply(status: 304, fields: notModifiedFields(etag: etag, vary: vary), body: ByteBuffer())
        }
        var fields = HTTPFields()
        fields[.contentType] = contentType
        if contentType == ImageFormat.svg.mimeType { fields[.contentSecurityPolicy] = Self.svgContentSecurityPolicy }
        if fallbackStatus != nil {
            fields[.cacheControl] = "public, max-age=\(configuration.fallbackImageTTL ?? configuration.ttl)"
            fields[Self.fallbackImageHeader] = "1"
        } else {
            fields[.cacheControl] = "public, max-age=\(configuration.ttl)"
            fields[.eTag] = etag
        }
        fields[.contentDisposition] = Self.disposition(options: options, source: request.source, ext: ext)
        if vary { fields[.vary] = "Accept" }
        if fallbackStatus == nil, let lastModified = source.lastModified { fields[.lastModified] = lastModified }
        metrics.recordBytesOut(body.readableBytes)
        return ServiceReply(status: fallbackStatus ?? 200, fields: fields, body: body)
    }

    /// The source's bytes as answered unprocessed: an SVG sanitised (``SVGSanitizer``) unless
    /// ``ImageServiceConfiguration/sanitizeSVG`` is off.
    private func passThroughBody(_ source: SourceImage, format: ImageFormat) -> ByteBuffer {
        guard format == .svg, configuration.sanitizeSVG else { return ByteBuffer(bytes: source.data) }
        return ByteBuffer(bytes: SVGSanitizer.sanitize(Array(source.data)))
    }

    /// The `Content-Security-Policy` of an SVG answer: nothing it references is loaded and
    /// nothing in it runs, should it be opened as a document.
    static let svgContentSecurityPolicy = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; sandbox"

    private func notModifiedFields(etag: String, vary: Bool) -> HTTPFields {
        var fields = HTTPFields()
        fields[.eTag] = etag
        fields[.cacheControl] = "public, max-age=\(configuration.ttl)"
        if vary { fields[.vary] = "Accept" }
        return fields
    }

    /// `Fallback-Image: 1` marks an answer made from the fallback image.
    static let fallbackImageHeader = HTTPField.Name("Fallback-Image")!

    /// A strong ETag from the source identity, the canonical options and the output format.
    func etag(_ source: SourceImage, _ options: ProcessingOptions, _ format: String) -> String {
        let text = "\(source.identity)|\(options.canonicalForm)|\(format)"
        let digest = SHA256.hash(data: Data(text.utf8))
        return "\"" + Base64URL.encode(digest.prefix(18)) + "\""
    }

    static func matches(_ ifNoneMatch: String, _ tag: String) -> Bool {
        if ifNoneMatch == tag { return true }
        return ifNoneMatch.split(separator: ",").contains { candidate in
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
