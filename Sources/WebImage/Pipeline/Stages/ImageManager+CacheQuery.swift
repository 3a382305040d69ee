import CoreMetrics
import Foundation

extension ImageManager {
    /// The cache-query stage: the final key (memory, then disk); on a miss, the original key
    /// when the context asks for it (SPEC Q-5). A final-key hit goes to the download decision
    /// as the cached image, an original hit to the derive stage
    /// (``derive(from:cacheType:_:_:)``), a miss to the download decision with nothing cached.
    func queryCache(_ request: ImageLoadRequest, _ operation: ImageCombinedOperation) {
        guard let key = request.finalKey else { return decideDownload(request, operation, cached: nil) }
        let queryType = request.context.queryCacheType ?? .all
        let token = request.cache.queryImage(
            forKey: key, options: request.options, context: request.context, cacheType: queryType
        ) { [self] result in
            guard !result.isCancelled, !operation.isCancelled else { return }
            if Self.isHit(result, request.options) {
                countHit(result.cacheType)
                decideDownload(request, operation, cached: result)
            } else if request.hasDerivedKey, let originalKey = request.originalKey,
                let originalType = request.context.originalQueryCacheType, originalType != .none
            {
                queryOriginal(request, operation, key: originalKey, cacheType: originalType)
            } else {
                metrics.misses.increment()
                decideDownload(request, operation, cached: nil)
            }
        }
        if !operation.attach(token) { token.cancel() }
    }

    /// Looks for the original image. It is decoded with this load's options (a thumbnail when
    /// asked), so the final image can be derived from it.
    private func queryOriginal(
        _ request: ImageLoadRequest, _ operation: ImageCombinedOperation, key: String, cacheType: ImageCacheType
    ) {
        // A thumbnail decode of the original is not the original: it must not be kept in
        // memory under the original key.
        var context = request.context
        if request.context.decodesDerivedImage { context.storeCacheType = .disk }
        let token = request.originalCache.queryImage(
            forKey: key, options: request.options, context: context, cacheType: cacheType
        ) { [self] result in
            guard !result.isCancelled, !operation.isCancelled else { return }
            guard Self.isHit(result, request.options), let image = result.image else {
                metrics.misses.increment()
                return decideDownload(request, operation, cached: nil)
            }
            countHit(result.cacheType)
            Task { await derive(from: image, cacheType: result.cacheType, request, operation) }
        }
        if !operation.attach(token) { token.cancel() }
    }

    /// Whether a query found what the load needs: an image, or bytes for `avoidDecodeImage`.
    static func isHit(_ result: ImageCacheQueryResult, _ options: WebImageOptions) -> Bool {
        result.image != nil || (options.contains(.avoidDecodeImage) && result.data != nil)
    }

    func countHit(_ cacheType: ImageCacheType) {
        if cacheType == .memory { metrics.memoryHits.increment() } else { metrics.diskHits.increment() }
    }
}
