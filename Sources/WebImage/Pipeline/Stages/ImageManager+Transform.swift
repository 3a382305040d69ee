import CoreMetrics
import Dispatch
import Foundation

extension ImageManager {
    /// The derive stage, after the cache query and its decode: a hit is the cached image as it
    /// is; the original is made into the final image (the transformer on the original decoded with this
    /// load's options), stored under the final key, and returned as the cached image. `nil`:
    /// nothing cached, or nothing derived (the transform declined).
    ///
    /// - Throws: `imageTooLarge` (``checkTransformBudget(_:of:_:)``), or `cancelled`.
    func derive(
        _ lookup: CacheLookup, _ request: ImageLoadRequest, _ operation: ImageCombinedOperation
    ) async throws(WebImageError) -> ImageCacheQueryResult? {
        switch lookup {
        case .miss:
            return nil
        case .hit(let result):
            return result
        case .original(let found):
            guard let original = found.image else { return nil }
            let derived = try await transform(original, request, operation)
            try Self.checkCancellation()
            guard let derived else { return nil }
            try await store(StorePlan(derived: derived, request: request), request)
            return ImageCacheQueryResult(image: derived, cacheType: found.cacheType)
        }
    }

    /// The transform stage after a download and its decode (SPEC M-9): the delivered image — the transformed
    /// one, or the downloaded one when the transformer does not apply or declines.
    ///
    /// - Throws: `imageTooLarge` (``checkTransformBudget(_:of:_:)``), or `cancelled`.
    func transform(
        _ decoded: ImageLoaderResult, _ request: ImageLoadRequest, _ operation: ImageCombinedOperation
    ) async throws(WebImageError) -> (image: Image?, transformed: Bool) {
        guard let original = decoded.image, request.shouldTransform(original) else {
            return (decoded.image, false)
        }
        // A transform that returned nothing because the load was cancelled stores nothing:
        // the store stage reads the cancellation.
        let transformed = try await transform(original, request, operation)
        return (transformed ?? original, transformed != nil)
    }

    /// Runs the transformer on the cache's processing pool (never on the caller's or a network
    /// thread), shared with the other loads of the same decoded image and transformer (prefix)
    /// (``SharedTransforms``). A transform whose loads were all cancelled while it waited for
    /// a thread never starts (SPEC M-10). Returns `image` itself when the transformer does not
    /// apply, `nil` when the load was cancelled or a step declined.
    ///
    /// - Throws: `imageTooLarge` when the transformer's output exceeds the load's
    ///   decoded-bytes budget (``checkTransformBudget(_:of:_:)``).
    func transform(
        _ image: Image, _ request: ImageLoadRequest, _ operation: ImageCombinedOperation
    ) async throws(WebImageError) -> Image? {
        guard let transformer = request.transformer, request.shouldTransform(image) else { return image }
        let key = request.originalKey ?? request.url.absoluteString
        let start = DispatchTime.now().uptimeNanoseconds
        let result = await sharedTransforms.run(
            transformer, source: image, cacheKey: key, operation: operation, pool: request.cache.pool)
        metrics.transformDuration.recordNanoseconds(Int64(DispatchTime.now().uptimeNanoseconds &- start))
        if let result { try Self.checkTransformBudget(result, of: transformer, request) }
        return result
    }

    /// The load's decoded-bytes budget counts the transformer's output (SPEC R-3): the budget of
    /// the load's decode (``WebImageContext/decodeOptions(for:)``: ``DecodeLimits/maxDecodedBytes``,
    /// lowered by ``WebImageContext/maximumDecodedBytes``) bounds the decoded image before it
    /// is allocated, and the transformed image — all its frames — when the transformer returns
    /// (what an arbitrary transformer allocates cannot be known before it runs). An output
    /// over the budget is dropped: the load fails with `imageTooLarge` and nothing is cached
    /// or delivered. The decoded input and the output are each within the budget, so a load
    /// holds at most twice it in pixels.
    static func checkTransformBudget(
        _ output: Image, of transformer: any ImageTransformer, _ request: ImageLoadRequest
    ) throws(WebImageError) {
        let budget = request.context.decodeOptions(for: request.options).limits.maxDecodedBytes
        guard output.cost > budget else { return }
        let frames = output.frames.count == 1 ? "" : " × \(output.frames.count) frames"
        throw .imageTooLarge(
            reason: "the transform \(transformer.transformerKey) produced \(output.width)x\(output.height)\(frames), "
                + "\(DecodeLimits.formatBytes(output.cost)); the load's decoded-bytes budget is "
                + DecodeLimits.formatBytes(budget))
    }
}
