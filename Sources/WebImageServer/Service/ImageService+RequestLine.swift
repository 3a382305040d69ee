import Foundation
import NIOCore
import WebImage

extension ImageService {
    /// The full path of a parsed request, an image or `/info` alike: ``produce(_:ifNoneMatch:)``
    /// under admission and the processing deadline (``admitted(_:)``).
    func reply<Output>(_ request: ParsedRequest<Output>, ifNoneMatch: String?) async throws -> ServiceReply {
        let placeLimit = ContinuousClock.now + .milliseconds(Int64(configuration.sourceWaitLimit * 1000))
        return try await admitted { [self] in try await produce(request, ifNoneMatch: ifNoneMatch, placeLimit: placeLimit) }
    }

    /// `work` under admission and the processing deadline: one place per request from fetch to
    /// encode (`workers` run, `queue` wait, the rest 429), and the answer at the deadline at the
    /// latest (SPEC V-5, V-8).
    func admitted(_ work: @escaping @Sendable () async throws -> ServiceReply) async throws -> ServiceReply {
        guard gate.enter() else {
            metrics.queueRejected()
            throw ImageServiceError.queueFull(retryAfter: configuration.retryAfter)
        }
        metrics.setQueue(depth: gate.count)
        // The answer goes at the deadline; the place is given back only when the work has
        // stopped (it stops within a row of its current step), so the places bound the work running.
        return try await withProcessingDeadline(
            seconds: configuration.processingTimeout,
            whenStopped: { [gate, metrics] in
                gate.leave()
                metrics.setQueue(depth: gate.count)
            },
            work
        )
    }

    /// The watermark (when the request draws it) → the result store (an answer another instance
    /// made, without fetching) → fetch → headers → 304, or the source as is (`raw`,
    /// `skip_processing`), or the result (cached, or made once on the pool, then also written
    /// to the result store) → remembered for the hit path. The watermark's identity is part of
    /// the ETag and the result keys. A request that has no place to fetch its source by
    /// `placeLimit` is answered 503 with `Retry-After`, unfetched
    /// (``ImageServiceConfiguration/sourceWaitLimit``).
    private func produce<Output>(
        _ request: ParsedRequest<Output>, ifNoneMatch: String?, placeLimit: ContinuousClock.Instant
    ) async throws -> ServiceReply {
        let output = request.output, options = request.options
        let watermark = output.drawsWatermark(options) ? try await watermarks?.watermark() : nil
        let storeKey = resultStoreKey(request, watermark: watermark?.watermark.identity)
        if let storeKey, let stored = await storedReply(request, key: storeKey, ifNoneMatch: ifNoneMatch) { return stored }
        // From fetch until the answer is encoded, the request holds its source: a place, with
        // room for the largest source until it is here, then for its size.
        let reserved = configuration.limits.maxSourceBytes
        do {
            try await slots.acquire(bytes: reserved, until: placeLimit)
        } catch is SourceSlots.WaitExpired {
            throw ImageServiceError.busy(retryAfter: configuration.retryAfter)
        }
        var held = reserved
        defer { slots.release(bytes: held) }
        let (source, fallbackStatus) = try await fetchSource(
            request.source, fallback: Output.answersWithFallback, fallbackURL: options.fallbackImageURL)
        slots.settle(reserved: reserved, actual: source.data.count)
        held = min(reserved, source.data.count)
        // A request's `max_src_file_size` below the service's (the downloader stops at that one).
        if fallbackStatus == nil { try processor.limits.lowered(by: options.limits).checkSource(bytes: source.data.count) }
        let form = output.form(sourceFormat: source.format, options: options, negotiation: negotiation)
        let identity = source.identity + (watermark.map { "+watermark-" + $0.watermark.identity } ?? "")
        var headers = ResponseHeaders(
            contentType: form.contentType, etag: ResponseHeaders.etag(identity: identity, options: options, format: form.etagFormat),
            maxAge: fallbackStatus != nil ? configuration.fallbackImageTTL ?? configuration.ttl : configuration.ttl,
            disposition: ResponseHeaders.disposition(options: options, source: request.source, ext: form.fileExtension),
            varyAccept: form.varyAccept, lastModified: source.lastModified, isFallback: fallbackStatus != nil)
        if fallbackStatus == nil,
           let notModified = notModifiedReply(ifNoneMatch: ifNoneMatch, etag: headers.etag, fields: headers.notModifiedFields) {
            return notModified
        }
        if form.passThrough { return answer(await passThroughBody(source), headers: headers, status: fallbackStatus) }
        let keep = fallbackStatus == nil && source.freshFor > 0 ? storeKey : nil
        let result = try await made(
            source, request: request, form: form, watermark: watermark?.watermark, key: headers.etag,
            store: keep.map { ($0, source.lastModified) })
        if form.retypedAfterRender, let made = result.format {
            // `best`: the chosen candidate types the answer.
            headers.contentType = made.imageFormat.mimeType
            headers.disposition = ResponseHeaders.disposition(options: options, source: request.source, ext: made.imageFormat.fileExtension)
        }
        let reply = answer(result.body, headers: headers, status: fallbackStatus)
        if fallbackStatus == nil, source.freshFor > 0 {
            // The next identical request takes the hit path (``knownReply``).
            let known = KnownAnswer(
                etag: headers.etag, fields: reply.fields, notModifiedFields: headers.notModifiedFields,
                freshUntil: ContinuousClock.now + .milliseconds(Int64(min(source.freshFor, watermark?.freshFor ?? .infinity) * 1000)),
                expires: options.expires)
            results.remember(known, for: request.path, variant: output.variant)
        }
        return reply
    }

    /// The source, or (with `fallback`) the fallback image when the source cannot be had and
    /// one is configured, then also the status to answer with.
    private func fetchSource(_ url: String, fallback useFallback: Bool, fallbackURL: String?) async throws -> (SourceImage, fallbackStatus: Int?) {
        let downloadStart = ContinuousClock.now
        do {
            let source = try await sources.fetch(url)
            metrics.recordSource(layer: source.layer, bytes: source.data.count, duration: ContinuousClock.now - downloadStart)
            guard source.format != .unknown else { throw ImageServiceError.notAnImage }
            return (source, nil)
        } catch let error as ImageServiceError {
            guard useFallback, error.isSourceFailure else { throw error }
            let status = configuration.fallbackImageStatus == 0 ? error.status : configuration.fallbackImageStatus
            if let fallbackURL {
                // `fallback_image_url`: fetched under the source policy (normalised, allow-list,
                // address policy, byte limit); when it cannot be had, the source's error stands.
                guard let image = try? await fetchFallback(fallbackURL) else { throw error }
                return (image, status)
            }
            guard let fallback else { throw error }
            return (fallback, status)
        }
    }

    /// The `fallback_image_url` image, fetched as a source is.
    private func fetchFallback(_ url: String) async throws -> SourceImage {
        let normalized = try SourceURLNormalizer.normalize(url)
        try sources.policy.check(normalized)
        let image = try await sources.fetch(normalized)
        guard image.format != .unknown else { throw ImageServiceError.notAnImage }
        return image
    }

    /// The result for `key`: from the result cache, or made once on the pool for every
    /// request that asks for it meanwhile, then cached (and queued for the result store under
    /// `store`'s key, when given).
    private func made<Output>(
        _ source: SourceImage, request: ParsedRequest<Output>, form: AnswerForm, watermark: LoadedWatermark?, key: String,
        store: (key: ResultStoreKey, lastModified: String?)?
    ) async throws -> RenderedResult {
        // The result under this request's store key: requests that differ only in how the
        // format was chosen (`@webp`, `Accept`, the source's format) can meet the same render
        // (one ETag) but have store keys of their own, so each caller keeps its own, whether it
        // rendered, joined a render or found the result in memory (queued once per key).
        let result: RenderedResult
        if let cached = results.value(for: key) {
            metrics.recordResultCache(hit: true, layer: "memory")
            result = cached
        } else {
            metrics.recordResultCache(hit: false, layer: "memory")
            let (output, options) = (request.output, request.options)
            result = try await renders.run(key) { [self] in
                let processor = processor.lowered(by: options.limits)
                let made = try await pool.run { [metrics, decodes] () throws -> RenderedResult in
                    try output.make(
                        source, form: form, options: options, watermark: watermark, processor: processor, metrics: metrics, decodes: decodes)
                }
                results.insert(made, for: key)
                return made
            }
        }
        if let store { keepInResultStore(result, key: store.key, etag: key, lastModified: store.lastModified) }
        return result
    }

    /// A 200 (or the fallback's status) with `headers`.
    private func answer(_ body: ByteBuffer, headers: ResponseHeaders, status: Int?) -> ServiceReply {
        metrics.recordBytesOut(body.readableBytes)
        return ServiceReply(status: status ?? 200, fields: headers.fields, body: body)
    }

    /// The source's bytes as answered unprocessed: an SVG sanitised (``SVGSanitizer``) unless
    /// ``ImageServiceConfiguration/sanitizeSVG`` is off (the sanitiser reads the whole source:
    /// off the connection's event loop).
    private func passThroughBody(_ source: SourceImage) async -> ByteBuffer {
        guard source.format == .svg, configuration.sanitizeSVG else { return ByteBuffer(bytes: source.data) }
        return await offLoop { ByteBuffer(bytes: SVGSanitizer.sanitize(Array(source.data))) }
    }
}
