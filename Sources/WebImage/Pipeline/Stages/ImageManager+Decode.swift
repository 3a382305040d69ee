import CoreMetrics
import Foundation

extension ImageManager {
    /// The decode stage after the cache query: bytes read from disk become the image, decoded
    /// with this load's options (thumbnail size, scale — from an `@2x`/`@3x` key when the context
    /// sets none —, first frame only, scale-down) on the cache's pool, once for every load
    /// reading the same entry with the same options at once (``SharedDecodes``). The image then
    /// goes to memory under its decoded key (SPEC Q-4) when the cache keeps images in memory
    /// and the context's store cache type allows it. A hit that is already an image (memory,
    /// the synchronous query options) or that the load wants as bytes (`avoidDecodeImage`)
    /// passes as it is. An entry that is not a decodable image is a miss; it is deleted unless
    /// a page was asked for (the error may be about the page, S-8).
    ///
    /// - Throws: `cancelled` (nothing then goes to memory, SPEC Q-2).
    func decode(
        _ lookup: CacheLookup, _ request: ImageLoadRequest, _ operation: ImageCombinedOperation
    ) async throws(WebImageError) -> CacheLookup {
        switch lookup {
        case .miss:
            return .miss
        case .hit(let found):
            guard let key = request.finalKey,
                let result = try await decodeEntry(found, key: key, request.cache, request.context, request, operation)
            else {
                metrics.misses.increment()
                return .miss
            }
            countHit(result.cacheType)
            return .hit(result)
        case .original(let found):
            guard let key = request.originalKey,
                let result = try await decodeEntry(
                    found, key: key, request.originalCache, originalQueryContext(request), request, operation),
                result.image != nil
            else {
                metrics.misses.increment()
                return .miss
            }
            countHit(result.cacheType)
            return .original(result)
        }
    }

    /// `found` (read under `key` in `cache` with `context`) as an image; `nil` when its bytes
    /// do not decode.
    private func decodeEntry(
        _ found: ImageCacheQueryResult, key: String, _ cache: ImageCache, _ context: WebImageContext,
        _ request: ImageLoadRequest, _ operation: ImageCombinedOperation
    ) async throws(WebImageError) -> ImageCacheQueryResult? {
        guard found.image == nil, !request.options.contains(.avoidDecodeImage) else { return found }
        guard let data = found.data else { return nil }
        try Self.checkCancellation()
        var options = context.decodeOptions(for: request.options)
        if options.scaleFactor == nil { options.scaleFactor = Image.scale(fromFileName: key) }
        let coders = context.imageCoders ?? cache.coders
        let shared = SharedDecodes.Key(
            source: .disk(cache: ObjectIdentifier(cache), key: key), options: options,
            coders: context.imageCoders.map(ObjectIdentifier.init))
        let handle = sharedDecodes.decode(
            shared, bytes: ImageLoaderResult(image: nil, data: data, response: nil, finished: true), coders: coders,
            operation: operation, pool: cache.pool, stage: "disk")
        let outcome = await handle.task.value
        try Self.checkCancellation()
        switch outcome {
        case .success(let image):
            if cache.configuration.shouldCacheImagesInMemory && (context.storeCacheType?.includesMemory ?? true) {
                cache.memoryCache.setImage(image, forKey: ImageCache.memoryKey(forDecodedKey: key, context: context))
            }
            return ImageCacheQueryResult(image: image, data: data, cacheType: found.cacheType)
        case .failure(.cancelled):
            throw .cancelled
        case .failure(.badImageData) where context.imagePageIndex == nil:
            // A corrupt entry is never served: delete it and report a miss (S-8).
            cache.diskCache.remove(key)
            return nil
        case .failure:
            // Unsupported or too large for these options: a miss, but the bytes may be fine.
            return nil
        }
    }

    /// The decode stage after a download: the loader's bytes become the image (with the coders
    /// and on the pool of the library loader that delivered them, else the context's coders on
    /// the cache's pool), through the decode the download's completion entered in
    /// ``SharedDecodes`` (one per decode-option
    /// group among the loads that got these bytes). A loader that delivered an image (a custom
    /// loader decoding itself) skips the decode, and so does a load asking for bytes only
    /// (`avoidDecodeImage`).
    ///
    /// - Throws: the decode's error (the URL listed as failed when it is permanent, SPEC M-3),
    ///   or `cancelled`.
    func decode(
        _ download: Download, _ request: ImageLoadRequest, _ operation: ImageCombinedOperation
    ) async throws(WebImageError) -> ImageLoaderResult {
        var value = download.value
        value.progressive = nil
        guard let decoding = download.decoding else { return value }
        let outcome = await decoding.task.value
        try Self.checkCancellation()
        switch outcome {
        case .success(let image):
            value.image = image
            return value
        case .failure(let error):
            recordFailedURL(error, request)
            throw error
        }
    }

    /// In the loader's completion, synchronously: the shared decode of final bytes `value`,
    /// started or joined — before the downloader stops letting loads join the download, so a
    /// load of the same URL arriving later joins this decode (``joinDecode(_:_:)``). `nil` when
    /// there is nothing to decode: the loader delivered an image, or the load wants bytes only.
    func beginDecode(
        _ value: ImageLoaderResult, _ request: ImageLoadRequest, _ operation: ImageCombinedOperation
    ) -> SharedDecodes.Handle? {
        guard value.image == nil, !request.options.contains(.avoidDecodeImage) else { return nil }
        let coders = value.coders ?? request.context.imageCoders ?? CodersManager.shared
        return sharedDecodes.decode(
            downloadDecodeKey(request), bytes: value, coders: coders, operation: operation,
            pool: value.pool ?? request.cache.pool, stage: value.response == nil ? "file" : "download")
    }

    /// Before asking the loader: the decode of the same URL's bytes still in flight (the
    /// download ended, its decode has not), joined; `nil` when there is none, or when the
    /// load must download (`refreshCached` revalidates; `avoidDecodeImage` wants no decode).
    func joinDecode(_ request: ImageLoadRequest, _ operation: ImageCombinedOperation) -> SharedDecodes.Handle? {
        guard !request.options.contains(.refreshCached), !request.options.contains(.avoidDecodeImage) else { return nil }
        return sharedDecodes.join(downloadDecodeKey(request), operation: operation)
    }

    /// The shared-decode key of a download of the request's URL: the URL and the request
    /// options the downloader coalesces by, the decode options, the context's coders.
    private func downloadDecodeKey(_ request: ImageLoadRequest) -> SharedDecodes.Key {
        SharedDecodes.Key(
            source: .download(
                url: request.url,
                requestOptions: request.options.intersection([.handleCookies, .allowInvalidSSLCertificates]).rawValue),
            options: request.context.decodeOptions(for: request.options, url: request.url),
            coders: request.context.imageCoders.map(ObjectIdentifier.init))
    }
}
