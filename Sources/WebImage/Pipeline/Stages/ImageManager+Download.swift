import CoreMetrics
import Foundation
import Logging

extension ImageManager {
    /// The download decision (SPEC M-8): whether to download, given what the cache found, the
    /// options (`fromCacheOnly`, `refreshCached`), the delegate and the loader. Ends the load
    /// with the cached image (or with none) when no download follows; with `refreshCached`
    /// delivers the cached image first, then downloads.
    func decideDownload(_ request: ImageLoadRequest, _ operation: ImageCombinedOperation, cached: ImageCacheQueryResult?) {
        let options = request.options
        var shouldDownload = !options.contains(.fromCacheOnly) && (cached == nil || options.contains(.refreshCached))
        if shouldDownload, let delegate, !delegate.imageManager(self, shouldDownloadImageFor: request.url) {
            shouldDownload = false
        }
        var unsupported = false
        if shouldDownload && !request.loader.canRequestImage(for: request.url) {
            shouldDownload = false
            unsupported = true
        }
        let cachedResult = cached.map {
            ImageResult(image: $0.image, data: $0.data, cacheType: $0.cacheType, url: request.url)
        }
        if unsupported, cachedResult == nil {
            // No loader handles the URL: a typed failure (SPEC R-5), where SDWebImage completes
            // with no image and no error.
            let error = ImageLoaders.unsupportedURLError(request.url)
            metrics.failure(error)
            operation.end(.failure(error))
            return
        }
        guard shouldDownload else {
            if let cachedResult {
                metrics.loadDuration(source: cachedResult.cacheType, since: request.startTime)
                operation.end(.success(cachedResult))
            } else {
                // No cached image and no download allowed: no image and no error (SPEC M-8).
                operation.end(.success(ImageResult(image: nil, cacheType: .none, url: request.url)))
            }
            return
        }
        if let cachedResult {
            // refreshCached: the cached image first, then revalidate (SPEC M-8, D-10).
            operation.deliver(cachedResult)
        } else if let image = memoryImage(.beforeDownload, request) {
            metrics.memoryHits.increment()
            operation.end(.success(ImageResult(image: image, cacheType: .memory, url: request.url)))
            return
        }
        download(request, operation, hasCachedImage: cachedResult != nil)
    }

    /// The download stage: asks the loader, with the cached entry's validators for a
    /// `refreshCached` load and the priority set on the operation meanwhile.
    private func download(_ request: ImageLoadRequest, _ operation: ImageCombinedOperation, hasCachedImage: Bool) {
        var context = request.context
        if request.options.contains(.refreshCached), let key = request.originalKey,
            let extended = request.originalCache.diskCache.extendedData(for: key)
        {
            let validators = HTTPCacheValidators(entityTag: extended.eTag, lastModified: extended.lastModified)
            if !validators.isEmpty { context.cachedResponseValidators = validators }
        }
        if let priority = operation.priorityOverride { context.downloadPriority = priority }
        metrics.downloads.increment()
        let token = request.loader.requestImage(
            with: request.url, options: request.options, context: context,
            progress: { received, expected, url in
                operation.progress(request.progress, received: received, expected: expected, url: url)
            },
            completed: { [self] result in
                downloadCompleted(result, request, operation, hasCachedImage: hasCachedImage)
            })
        if !operation.attach(token) { token.cancel() }
    }

    /// What the loader answered: a 304 keeps the cached copy, a failure ends the load (and may
    /// list the URL), a partial image is a preview, a finished download goes on to
    /// ``finishDownload(_:_:_:)`` (transform, store, deliver).
    private func downloadCompleted(
        _ result: Result<ImageLoaderResult, WebImageError>, _ request: ImageLoadRequest,
        _ operation: ImageCombinedOperation, hasCachedImage: Bool
    ) {
        guard !operation.isCancelled else { return }
        switch result {
        case .failure(.cacheNotModified) where hasCachedImage:
            // 304: the cached copy stays (its dates refreshed); no second delivery (SPEC M-8, D-10).
            refreshDates(request)
            operation.endSilently()
        case .failure(let error):
            recordFailedURL(error, request)
            fail(error, request, operation)
        case .success(let value) where !value.finished:
            previewArrived(value, request, operation)
        case .success(let value):
            if request.options.contains(.retryFailed) { failedURLs.remove(request.url) }
            metrics.downloadBytes.increment(by: Int64(value.data.count))
            finishDownload(value, request, operation)
        }
    }

    /// Puts the URL on the failed-URL list when the error is permanent and neither the loader
    /// nor the delegate objects (SPEC M-3). A bad page index (past the end) says nothing about
    /// the URL: not listed.
    private func recordFailedURL(_ error: WebImageError, _ request: ImageLoadRequest) {
        let pageError: Bool
        if case .badImageData = error { pageError = request.context.imagePageIndex != nil } else { pageError = false }
        let loaderAllows =
            !pageError && request.loader.shouldBlockFailedURL(request.url, error: error)
            && (delegate?.imageManager(self, shouldBlockFailedURL: request.url, error: error) ?? true)
        if failedURLs.recordFailure(request.url, error: error, loaderAllows: loaderAllows) {
            PipelineMetrics.logger.info("URL added to the failed list", metadata: ["url": "\(request.url)", "error": "\(error.code)"])
        }
    }

    /// After a 304: rewrite the cached bytes so the entry's dates are fresh (expiry counts
    /// from the last validation).
    private func refreshDates(_ request: ImageLoadRequest) {
        guard let key = request.originalKey else { return }
        let disk = request.originalCache.diskCache
        Task {
            guard let data = disk.data(for: key) else { return }
            try? await disk.storeAndWait(data, forKey: key, extendedData: disk.extendedData(for: key))
        }
    }
}
