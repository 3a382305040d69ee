import CoreMetrics
import Foundation

extension ImageManager {
    /// What the cache query found: an image (memory, or the synchronous query options), or
    /// the bytes of a disk entry for the decode stage.
    enum CacheLookup: Sendable {
        /// The delivered image, or its bytes, under the final key.
        case hit(ImageCacheQueryResult)
        /// The original image, or its bytes, to derive the delivered one from (SPEC Q-5).
        case original(ImageCacheQueryResult)
        case miss
    }

    /// The cache-query stage: the final key (disk, and memory unless the synchronous prefix
    /// already looked there; nothing when the prefix queried it with the synchronous query
    /// options); on a miss, the original key when the context asks for it (SPEC Q-5). Disk
    /// entries are read, not decoded: the decode stage decodes them. Nothing is queried with
    /// `fromLoaderOnly` or without a cache key.
    ///
    /// - Throws: `cancelled` when the task was cancelled.
    func queryCache(_ request: ImageLoadRequest) async throws(WebImageError) -> CacheLookup {
        guard !request.options.contains(.fromLoaderOnly), let key = request.finalKey else { return .miss }
        // `avoidDecodeImage` makes the cache's query read the disk bytes without decoding them.
        let options = request.options.union(.avoidDecodeImage)
        let result: ImageCacheQueryResult
        if let prequeried = request.prequeried {
            result = prequeried
        } else {
            result = await request.cache.queryImage(
                forKey: key, options: options, context: request.context, cacheType: request.finalQueryCacheType)
            try Self.checkCancellation(result)
        }
        if Self.isEntry(result) { return .hit(result) }
        guard request.hasDerivedKey, let originalKey = request.originalKey,
            let originalType = request.context.originalQueryCacheType, originalType != .none
        else {
            metrics.misses.increment()
            return .miss
        }
        let original = await request.originalCache.queryImage(
            forKey: originalKey, options: options, context: originalQueryContext(request), cacheType: originalType)
        try Self.checkCancellation(original)
        guard Self.isEntry(original) else {
            metrics.misses.increment()
            return .miss
        }
        return .original(original)
    }

    /// The context the original is read and decoded with: this load's (its decode options, a
    /// thumbnail when asked, so the final image can be derived from it); a thumbnail decode of
    /// the original is not the original, so it is not kept in memory under the original key.
    func originalQueryContext(_ request: ImageLoadRequest) -> WebImageContext {
        var context = request.context
        if request.context.decodesDerivedImage { context.storeCacheType = .disk }
        return context
    }

    /// Whether a query found something: an image, or bytes.
    private static func isEntry(_ result: ImageCacheQueryResult) -> Bool {
        result.image != nil || result.data != nil
    }

    /// Throws `cancelled` when the query or the task was cancelled.
    private static func checkCancellation(_ result: ImageCacheQueryResult) throws(WebImageError) {
        if result.isCancelled { throw .cancelled }
        try checkCancellation()
    }

    /// Throws `cancelled` when the task running the load was cancelled.
    static func checkCancellation() throws(WebImageError) {
        if Task.isCancelled { throw .cancelled }
    }

    /// Whether a query found what the load needs: an image, or bytes for `avoidDecodeImage`.
    static func isHit(_ result: ImageCacheQueryResult, _ options: WebImageOptions) -> Bool {
        result.image != nil || (options.contains(.avoidDecodeImage) && result.data != nil)
    }

    func countHit(_ cacheType: ImageCacheType) {
        if cacheType == .memory { metrics.memoryHits.increment() } else { metrics.diskHits.increment() }
    }
}
