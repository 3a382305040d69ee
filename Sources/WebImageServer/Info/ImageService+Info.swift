import Foundation
import NIOCore
import WebImage

extension ImageService {
    /// The full path of an `/info` request (SPEC V-14): parsed and checked like an image URL
    /// (``ParsedInfoRequest``), then answered under the same admission, deadline and source
    /// slots as images; errors become their status and body.
    func freshInfoReply(path: String, accept: String?, ifNoneMatch: String?) async -> ServiceReply {
        do {
            let request = try ParsedInfoRequest(
                path: path, signer: signer, presets: configuration.presets, policy: sources.policy, now: now())
            return try await admitted { [self] in try await produceInfo(request, ifNoneMatch: ifNoneMatch) }
        } catch {
            let json = accept?.lowercased().contains("application/json") == true
            switch error {
            case let error as ImageServiceError: return .error(error, json: json)
            case is CancellationError: return .error(.unavailable, json: json)
            default: return .error(.unprocessable("internal error"), json: json)
            }
        }
    }

    /// The result store (an answer another instance computed, without fetching) → fetch →
    /// headers → 304, or the info JSON (from the result cache, or computed once on the pool for
    /// every request that asks for it meanwhile, then also written to the result store) →
    /// remembered for the hit path.
    private func produceInfo(_ request: ParsedInfoRequest, ifNoneMatch: String?) async throws -> ServiceReply {
        let storeKey = infoResultStoreKey(request)
        if let storeKey, let stored = await storedInfoReply(request, key: storeKey, ifNoneMatch: ifNoneMatch) { return stored }
        try await slots.acquire()
        defer { slots.release() }
        let downloadStart = ContinuousClock.now
        let source = try await sources.fetch(request.source)
        metrics.recordSource(layer: source.layer, bytes: source.data.count, duration: ContinuousClock.now - downloadStart)
        guard source.format != .unknown else { throw ImageServiceError.notAnImage }
        let headers = ResponseHeaders(
            contentType: "application/json", etag: request.etag(identity: source.identity), maxAge: configuration.ttl,
            disposition: ResponseHeaders.disposition(options: request.options, source: request.source, ext: "json"),
            varyAccept: false, lastModified: source.lastModified, isFallback: false)
        if let notModified = notModifiedReply(ifNoneMatch: ifNoneMatch, etag: headers.etag, fields: headers.notModifiedFields) {
            return notModified
        }
        let keep = source.freshFor > 0 ? storeKey.map { (key: $0, lastModified: source.lastModified) } : nil
        let result = try await info(source, request: request, key: headers.etag, store: keep)
        metrics.recordBytesOut(result.body.readableBytes)
        let reply = ServiceReply(status: 200, fields: headers.fields, body: result.body)
        if source.freshFor > 0 {
            let known = KnownAnswer(
                etag: headers.etag, fields: reply.fields, notModifiedFields: headers.notModifiedFields,
                freshUntil: ContinuousClock.now + .milliseconds(Int64(source.freshFor * 1000)), expires: request.options.expires)
            results.remember(known, for: request.path, variant: .any)
        }
        return reply
    }

    /// The info for `key`: from the result cache, or computed once on the pool, then cached (and
    /// queued for the result store under `store`'s key, when given).
    private func info(
        _ source: SourceImage, request: ParsedInfoRequest, key: String, store: (key: ResultStoreKey, lastModified: String?)?
    ) async throws -> RenderedResult {
        if let cached = results.value(for: key) {
            metrics.recordResultCache(hit: true, layer: "memory")
            return cached
        }
        metrics.recordResultCache(hit: false, layer: "memory")
        let (options, components) = (request.options, request.components)
        return try await renders.run(key) { [self] in
            let computed = try await pool.run { [processor, metrics, decodes] () throws -> RenderedResult in
                try processor.info(source, options: options, components: components, metrics: metrics, decodes: decodes)
            }
            results.insert(computed, for: key)
            if let store { keepInResultStore(computed, key: store.key, etag: key, lastModified: store.lastModified) }
            return computed
        }
    }

    /// The `/info` request's key in the result store (`nil` without a store): the canonical
    /// request with `info:` and the BlurHash components as its format choice, so it never equals
    /// an image's key.
    func infoResultStoreKey(_ request: ParsedInfoRequest) -> ResultStoreKey? {
        guard resultStore != nil else { return nil }
        return ResultStoreKey(
            source: request.source, options: request.options, formatChoice: request.storeFormatChoice,
            outputSettings: configuration.outputFingerprint)
    }

    /// The answer from the result store when it holds an unexpired `/info` entry for `key` (a
    /// 200 with the stored JSON, or a 304), with no fetch and no decode.
    private func storedInfoReply(_ request: ParsedInfoRequest, key: ResultStoreKey, ifNoneMatch: String?) async -> ServiceReply? {
        guard let resultStore, let entry = await resultStore.lookup(key, now: now()), entry.contentType == "application/json" else {
            return nil
        }
        let headers = ResponseHeaders(
            contentType: entry.contentType, etag: entry.etag, maxAge: configuration.ttl,
            disposition: ResponseHeaders.disposition(options: request.options, source: request.source, ext: "json"),
            varyAccept: false, lastModified: entry.lastModified, isFallback: false)
        return storedAnswer(
            entry, format: nil, headers: headers, path: request.path, variant: .any, expires: request.options.expires, ifNoneMatch: ifNoneMatch)
    }
}
