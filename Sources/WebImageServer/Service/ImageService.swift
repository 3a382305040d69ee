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
///
/// A request takes one of two paths (docs/ARCHITECTURE.md lists the steps): the hit path
/// (`knownReply`) answers a path answered before from memory; the full path (`freshReply`,
/// `ImageService+RequestLine.swift`) parses, admits, fetches, renders and answers, for an
/// image and for `/info` alike (`ServiceOutput`).
public final class ImageService: Sendable {
    /// The configuration it runs with.
    public let configuration: ImageServiceConfiguration
    let signer: URLSigner?
    let sources: SourceStore
    let processor: ImageProcessor
    let results: ResultCache
    let gate: AdmissionGate
    let pool: ProcessingPool
    /// Bounds the requests holding a fetched source (`fetchAhead`) and their bytes (`maxSourceMemory`).
    let slots: SourceSlots
    let renders = SingleFlight<String, RenderedResult>()
    let metrics: ServiceMetrics
    /// The shared result store's lookups and writes, when one is configured (SPEC V-12).
    let resultStore: ResultStoreStep?
    /// What `Accept` chooses.
    let negotiation: FormatNegotiation
    let now: @Sendable () -> Date
    /// The fallback image as a source, when one is configured (SPEC V-7).
    let fallback: SourceImage?
    /// The watermark image of the `watermark` option, when one is configured.
    let watermarks: WatermarkStore?
    private let draining = Mutex(false)
    let decodes = SharedCount()

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
        var processor = ImageProcessor(
            limits: configuration.limits, stripColorProfile: configuration.stripColorProfile, jxlEffort: configuration.jxlEffort,
            avifSpeed: configuration.avifSpeed, avifOptions: configuration.avifOptions, autoquality: configuration.autoquality,
            autoqualityFormatMin: configuration.autoqualityFormatMin, autoqualityFormatMax: configuration.autoqualityFormatMax)
        processor.unsharpMasking = configuration.unsharpMasking
        processor.preserveHDR = configuration.preserveHDR
        processor.jpegOptions = configuration.jpegOptions
        processor.pngOptions = configuration.pngOptions
        processor.webpOptions = configuration.webpOptions
        self.processor = processor
        results = ResultCache(capacity: configuration.resultCacheBytes)
        gate = AdmissionGate(workers: configuration.workers, queue: configuration.queue)
        pool = ProcessingPool(name: "webimage.server", width: configuration.workers)
        slots = SourceSlots(workers: configuration.workers, fetchAhead: configuration.resolvedFetchAhead, byteBudget: configuration.sourceMemory)
        let metrics = ServiceMetrics()
        self.metrics = metrics
        resultStore = configuration.resultStore.map { store in
            ResultStoreStep(
                store: store, timeout: configuration.resultStoreTimeout, queue: configuration.resultStoreQueue,
                queueBytes: configuration.resultStoreQueueBytes, metrics: metrics, logger: Logger(label: "webimage.server.result-store"))
        }
        negotiation = FormatNegotiation(
            autoAVIF: configuration.autoAVIF, autoWebP: configuration.autoWebP, autoJXL: configuration.autoJXL,
            best: configuration.bestFormat)
        fallback = configuration.fallbackImage.map {
            SourceImage(data: $0, identity: "fallback-" + SourceIdentity.content($0), lastModified: nil, layer: "fallback", freshFor: 0)
        }
        self.now = now
        watermarks = configuration.watermark.map { [sources, processor, pool] source in
            WatermarkStore(
                source: source, ttl: configuration.watermarkURLTTL, baseOpacity: configuration.watermarkOpacity,
                fetch: { url in
                    let normalized = try SourceURLNormalizer.normalize(url)
                    try sources.policy.check(normalized)
                    return try await sources.fetch(normalized)
                },
                decode: { data in
                    try await pool.run { try processor.decode(data, options: ProcessingOptions(), keepAnimation: false).image }
                })
        }
    }

    /// Writes the renders still queued for the result store (each within its write timeout),
    /// then stops the source downloader.
    public func shutdown() async {
        await resultStore?.flush()
        await sources.shutdown()
    }

    /// Requests holding an admission place now (running or waiting to run; SPEC V-8).
    public var admittedCount: Int { gate.count }

    /// Whether signing is on.
    public var isSigned: Bool { signer != nil }

    /// The result-cache hit path: what `path` answered last time (for this `Accept` when it
    /// chooses the format), while its source counts as unchanged and the URL has not expired;
    /// `nil` otherwise. No parsing, signature check, fetch or hashing: a path is only
    /// remembered after all of them passed, and everything they depend on is fixed at start.
    func knownReply(path: String, accept: String?, ifNoneMatch: String?) -> ServiceReply? {
        guard let (answer, result) = results.answer(for: path, variant: { negotiation.variant(accept: accept) }) else { return nil }
        guard ContinuousClock.now < answer.freshUntil else { return nil }
        if ProcessingOptions.hasExpired(answer.expires, now: now()) { return nil }
        if let notModified = notModifiedReply(ifNoneMatch: ifNoneMatch, etag: answer.etag, fields: answer.notModifiedFields) {
            return notModified
        }
        metrics.recordResultCache(hit: true, layer: "memory")
        metrics.recordBytesOut(result.body.readableBytes)
        return ServiceReply(status: 200, fields: answer.fields, body: result.body)
    }

    /// The full path: the request parsed as `/info` or as an image (``ParsedRequest``), then
    /// ``reply(_:ifNoneMatch:)``; errors become their status and plain-text (or JSON) body.
    func freshReply(path: String, accept: String?, ifNoneMatch: String?) async -> ServiceReply {
        do {
            if ParsedRequest<InfoOutput>.isFor(path) {
                return try await reply(parse(path, accept: accept) as ParsedRequest<InfoOutput>, ifNoneMatch: ifNoneMatch)
            }
            return try await reply(parse(path, accept: accept) as ParsedRequest<ImageOutput>, ifNoneMatch: ifNoneMatch)
        } catch {
            let json = accept?.lowercased().contains("application/json") == true
            switch error {
            case let error as ImageServiceError: return .error(error, json: json)
            case is CancellationError: return .error(.unavailable, json: json)
            default: return .error(.unprocessable("internal error"), json: json)
            }
        }
    }

    /// `path` parsed and checked with the service's signer, presets, source policy,
    /// negotiation and clock.
    func parse<Output>(_ path: String, accept: String?) throws(ImageServiceError) -> ParsedRequest<Output> {
        try ParsedRequest(
            path: path, accept: accept, signer: signer, presets: configuration.presets, maxPipelines: configuration.maxChainedPipelines,
            autoquality: configuration.autoquality, policy: sources.policy,
            negotiation: negotiation, now: now())
    }

    /// The one conditional answer (SPEC V-7): a 304 with `fields` when `ifNoneMatch` names
    /// `etag`, recorded as a hit; `nil` otherwise.
    func notModifiedReply(ifNoneMatch: String?, etag: String, fields: @autoclosure () -> HTTPFields) -> ServiceReply? {
        guard let ifNoneMatch, ResponseHeaders.matches(ifNoneMatch, etag) else { return nil }
        metrics.recordResultCache(hit: true, layer: "not-modified")
        return ServiceReply(status: 304, fields: fields(), body: ByteBuffer())
    }
}
