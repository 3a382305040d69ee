import Foundation
import NIOCore
import WebImage

extension ImageService {
    /// The request's key in the result store (with the identity of the `watermark` image it
    /// carries, if any); `nil` without a store, and for `raw` (the source as is is never stored).
    func resultStoreKey(_ request: ParsedImageRequest, watermark: String? = nil) -> ResultStoreKey? {
        guard resultStore != nil, !request.options.raw else { return nil }
        let choice = request.format.keyText + (watermark.map { "\nwatermark:" + $0 } ?? "")
        return ResultStoreKey(
            source: request.source, options: request.options, formatChoice: choice, outputSettings: configuration.outputFingerprint)
    }

    /// The answer from the result store when it holds an unexpired entry for `key`: a 200 with
    /// the stored image (or a 304 when `ifNoneMatch` names its ETag), with no fetch and no render.
    /// The entry also goes into the result cache, and the path is remembered for the hit path
    /// for at most `source-revalidate-after` seconds, as if this instance had rendered it.
    func storedReply(_ request: ParsedImageRequest, key: ResultStoreKey, ifNoneMatch: String?) async -> ServiceReply? {
        guard let resultStore, let entry = await resultStore.lookup(key, now: now()) else { return nil }
        guard let format = OutputFormat.allCases.first(where: { $0.imageFormat.mimeType == entry.contentType }) else { return nil }
        let headers = ResponseHeaders(
            contentType: entry.contentType, etag: entry.etag, maxAge: configuration.ttl,
            disposition: ResponseHeaders.disposition(options: request.options, source: request.source, ext: format.imageFormat.fileExtension),
            varyAccept: request.format.varies(negotiating: negotiation.negotiates), lastModified: entry.lastModified, isFallback: false)
        return storedAnswer(
            entry, format: format, headers: headers, path: request.path, variant: request.variant, expires: request.options.expires,
            ifNoneMatch: ifNoneMatch)
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
