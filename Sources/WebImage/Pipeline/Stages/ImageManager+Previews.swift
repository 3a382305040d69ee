import Foundation

extension ImageManager {
    /// At the start of a load: a preview left in memory by a download of the same image still
    /// going on is shown first, while this load goes on (Nuke's previews in memory).
    func showMemoryPreview(_ request: ImageLoadRequest, _ operation: ImageCombinedOperation) {
        guard let preview = memoryImage(.preview, request) else { return }
        operation.deliver(ImageResult(image: preview, cacheType: .memory, url: request.url, isFinal: false))
    }

    /// A partial image from a progressive download (SPEC D-8): transformed when the
    /// transformer applies, else kept in memory and delivered as it is.
    func previewArrived(_ value: ImageLoaderResult, _ request: ImageLoadRequest, _ operation: ImageCombinedOperation) {
        if let image = value.image, request.shouldTransform(image) {
            transformPreview(image, request, operation)
        } else {
            if let image = value.image { storePreview(image, request) }
            operation.deliver(ImageResult(image: value.image, data: value.data, cacheType: .none, url: request.url, isFinal: false))
        }
    }

    /// Runs the transformer on a progressive preview (SPEC D-8, M-9) on the cache's pool and
    /// delivers the result (without data: the bytes describe the original). Cheap by design:
    /// while one preview is being transformed, newer ones are dropped, not queued; a load
    /// cancelled before the job gets a thread skips it; and the final result waits for a
    /// preview in flight (``closePreviews(_:_:)``), so none follows it.
    private func transformPreview(_ image: Image, _ request: ImageLoadRequest, _ operation: ImageCombinedOperation) {
        guard let transformer = request.transformer, operation.beginPreview() else { return }
        let key = request.originalKey ?? request.url.absoluteString
        let url = request.url
        request.cache.pool.submit {
            defer { operation.endPreview() }
            guard !operation.isCancelled, let preview = transformer.transform(image, key: key) else { return }
            // A preview over the load's budget is dropped; the final transform will fail the load.
            guard (try? Self.checkTransformBudget(preview, of: transformer, request)) != nil else { return }
            self.storePreview(preview, request)
            operation.deliver(ImageResult(image: preview, data: nil, cacheType: .none, url: url, isFinal: false))
        }
    }

    /// Before the final result of a load whose previews are transformed: no more previews, and
    /// one being transformed is delivered (or dropped) first, never after it.
    func closePreviews(_ request: ImageLoadRequest, _ operation: ImageCombinedOperation) async {
        guard request.transformer != nil, request.options.contains(.progressiveLoad) else { return }
        await operation.closePreviews()
    }

    /// Keeps a delivered progressive preview in memory under the preview key of the final key
    /// (never on disk), so another view of the image can show it while the download goes on.
    private func storePreview(_ image: Image, _ request: ImageLoadRequest) {
        let cache = request.cache
        guard (request.context.storeCacheType ?? .all).includesMemory, cache.configuration.shouldCacheImagesInMemory,
            let key = request.finalKey
        else { return }
        cache.memoryCache.setImage(image, forKey: ImageCache.previewCacheKey(for: key))
    }

    /// Forgets the memory preview once the load has its final outcome (previews never outlive
    /// their download).
    func removePreview(_ request: ImageLoadRequest) {
        guard request.options.contains(.progressiveLoad), let key = request.finalKey else { return }
        request.cache.memoryCache.removeImage(forKey: ImageCache.previewCacheKey(for: key))
    }
}
