import CoreMetrics
import Foundation

extension ImageManager {
    /// What the cache query found.
    enum CacheLookup: Sendable {
        /// The delivered image (or, with `avoidDecodeImage`, its bytes) under the final key.
        case hit(ImageCacheQueryResult)
        /// The original image, to derive the delivered one from (SPEC Q-5).
        case original(Image, cacheType: ImageCacheType)
        case miss
    }

    /// The cache-query stage: the final key (disk, and memory unless the synchronous prefix
    /// already looked there; nothing when the prefix queried it with the synchronous query
    /// options); on a miss, the original key when the context asks for it (SPEC
    /// Nothing is queried with `fromLoaderOnly` or without a cache key.
    ///
    /// - Throws: `cancelled` when the task was cancelled (the query then decodes nothing and
    ///   writes nothing to memory, SPEC Q-2).
    func queryCache(_ request: ImageLoadRequest) async throws(WebImageError) -> CacheLookup {
        guard !request.options.contains(.fromLoaderOnly), let key = request.finalKey else { return .miss }
        let result: ImageCacheQueryResult
        if let prequeried = request.prequeried {
            result = prequeried
        } else {
            result = await request.cache.queryImage(
                forKey: key, options: request.options, context: request.context, cacheType: request.finalQueryCacheType)
            try Self.checkCancellation(result)
        }
        if Self.isHit(result, request.options) {
            countHit(result.cacheType)
            return .hit(result)
        }
        guard request.hasDerivedKey, let originalKey = request.originalKey,
            let originalType = request.context.originalQueryCacheType, originalType != .none
        else {
            metrics.misses.increment()
            return .miss
        }
        // The original is decoded with this load's options (a thumbnail when asked), so the
        // final image can be derived from it; a thumbnail decode of the original is not the
        // original: it must not be kept in memory under the original key.
        var context = request.context
        if request.context.decodesDerivedImage { context.storeCacheType = .disk }
        let original = await request.originalCache.queryImage(
            forKey: originalKey, options: request.options, context: context, cacheType: originalType)
        try Self.checkCancellation(original)
        guard Self.isHit(original, request.options), let image = original.image else {
            metrics.misses.increment()
            return .miss
        }
        countHit(original.cacheType)
        return .original(image, cacheType: original.cacheType)
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
