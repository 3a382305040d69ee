import Foundation
import NIOCore
import WebImage

extension ImageService {
    /// The request's key in the result store (with the identity of the `watermark` image it
    /// draws, if any): the canonical request and the output's ``ServiceOutput/storeChoice(_:watermark:)``;
    /// `nil` without a store, and for an answer never stored (`raw`).
    func resultStoreKey<Output>(_ request: ParsedRequest<Output>, watermark: String? = nil) -> ResultStoreKey? {
        guard resultStore != nil, let choice = request.output.storeChoice(request.options, watermark: watermark) else { return nil }
        return ResultStoreKey(
            source: request.source, options: request.options, formatChoice: choice, outputSettings: configuration.outputFingerprint)
    }

    /// The answer from the result store when it holds an unexpired entry of the request's kind
    /// for `key`: a 200 with the stored body (or a 304 when `ifNoneMatch` names its ETag), with
    /// no fetch and no render. The entry also goes into the result cache, and the path is
    /// remembered for the hit path for at most `source-revalidate-after` seconds, as if this
    /// instance had made it.
    func storedReply<Output>(_ request: ParsedRequest<Output>, key: ResultStoreKey, ifNoneMatch: String?) async -> ServiceReply? {
        guard let resultStore, let entry = await resultStore.lookup(key, now: now()) else { return nil }
        guard let form = request.output.storedForm(contentType: entry.contentType, negotiation: negotiation) else { return nil }
        let headers = ResponseHeaders(
            contentType: entry.contentType, etag: entry.etag, maxAge: configuration.ttl,
            disposition: ResponseHeaders.disposition(options: request.options, source: request.source, ext: form.fileExtension),
            varyAccept: form.varyAccept, lastModified: entry.lastModified, isFallback: false)
        return storedAnswer(
            entry, format: form.format, headers: headers, path: request.path, variant: request.output.variant,
            expires: request.options.expires, ifNoneMatch: ifNoneMatch)
    }

    /// The stored entry's answer with `headers`, after putting it into the result cache and
    /// remembering `path` for the hit path.
    func storedAnswer(
        _ entry: StoredResult, format: OutputFormat?, headers: ResponseHeaders, path: String, variant: FormatVariant, expires: Int64?,
        ifNoneMatch: String?
    ) -> ServiceReply {
        let result = RenderedResult(body: ByteBuffer(bytes: entry.body), format: format)
        results.insert(result, for: entry.etag)
        let fresh = min(configuration.sourceRevalidateAfter, entry.expiresAt.timeIntervalSince(now()))
        if fresh > 0 {
            let known = KnownAnswer(
                etag: entry.etag, fields: headers.fields, notModifiedFields: headers.notModifiedFields,
                freshUntil: ContinuousClock.now + .milliseconds(Int64(fresh * 1000)), expires: expires)
            results.remember(known, for: path, variant: variant)
        }
        if let notModified = notModifiedReply(ifNoneMatch: ifNoneMatch, etag: entry.etag, fields: headers.notModifiedFields) {
            return notModified
        }
        metrics.recordBytesOut(result.body.readableBytes)
        return ServiceReply(status: 200, fields: headers.fields, body: result.body)
    }

    /// Queues a fresh render for the result store under `key`, to be served until now + `ttl`.
    func keepInResultStore(_ result: RenderedResult, key: ResultStoreKey, etag: String, lastModified: String?) {
        guard let resultStore, configuration.ttl > 0 else { return }
        // An image's media type, or JSON for an `/info` answer.
        let contentType = result.format?.imageFormat.mimeType ?? "application/json"
        let stored = StoredResult(
            key: key, body: Data(result.body.readableBytesView), contentType: contentType, etag: etag,
            lastModified: lastModified, expiresAt: now().addingTimeInterval(Double(configuration.ttl)))
        resultStore.keep(stored, for: key)
    }
}
