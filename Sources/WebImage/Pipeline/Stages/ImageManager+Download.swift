import CoreMetrics
import Foundation
import Logging

extension ImageManager {
    /// What the download decision chose.
    enum DownloadDecision: Sendable {
        /// No download: the load ends so.
        case end(ImageLoad.Outcome)
        /// Download; with `refreshCached`, the cached image is delivered first.
        case download(cachedFirst: ImageResult?)
    }

    /// The download decision (SPEC M-8): whether to download, given what the cache found (or
    /// derived), the options (`fromCacheOnly`, `refreshCached`), the delegate and the loader. A
    /// last look in memory before downloading finds an image another load of the same URL
    /// finished meanwhile.
    func decideDownload(_ request: ImageLoadRequest, cached: ImageCacheQueryResult?) -> DownloadDecision {
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
            return .end(.failed(ImageLoaders.unsupportedURLError(request.url)))
        }
        guard shouldDownload else {
            // No cached image and no download allowed: no image and no error (SPEC M-8).
            return .end(.image(cachedResult ?? ImageResult(image: nil, cacheType: .none, url: request.url), timed: cachedResult != nil))
        }
        if cachedResult == nil, let image = memoryImage(.beforeDownload, request) {
            metrics.memoryHits.increment()
            return .end(.image(ImageResult(image: image, cacheType: .memory, url: request.url), timed: false))
        }
        return .download(cachedFirst: cachedResult)
    }

    /// A finished download: the loader's bytes (or the image a custom loader decoded), and the
    /// shared decode its completion began (``beginDecode(_:_:_:)``), if any.
    struct Download: Sendable {
        let value: ImageLoaderResult
        let decoding: SharedDecodes.Handle?
    }

    /// The download stage: asks the loader for the bytes (``WebImageContext/deliversBytesOnly``),
    /// with the cached entry's validators for a `refreshCached` load and the priority set on the
    /// operation meanwhile, and returns the finished download; `nil` for a 304 that keeps the
    /// cached copy (its dates refreshed, SPEC D-10). Progress and partial images go to the
    /// operation as the loader reports them.
    ///
    /// The decode of the bytes is entered in ``SharedDecodes`` in the loader's completion,
    /// synchronously: the downloader completes its callers before it stops accepting new ones,
    /// so a load of the same URL arriving meanwhile joins the download, or, arriving later,
    /// joins its decode here (``joinDecode(_:_:)``) or finds the image in memory — it never
    /// downloads or decodes it again.
    ///
    /// - Throws: the loader's error (the URL listed as failed when the error is permanent,
    ///   SPEC M-3), or `cancelled`.
    func download(
        _ request: ImageLoadRequest, _ operation: ImageCombinedOperation, revalidating: Bool
    ) async throws(WebImageError) -> Download? {
        if let joined = joinDecode(request, operation) { return Download(value: joined.bytes, decoding: joined) }
        var context = request.context
        context.deliversBytesOnly = true
        if request.options.contains(.refreshCached), let key = request.originalKey,
            let extended = request.originalCache.diskCache.extendedData(for: key)
        {
            let validators = HTTPCacheValidators(entityTag: extended.eTag, lastModified: extended.lastModified)
            if !validators.isEmpty { context.cachedResponseValidators = validators }
        }
        if let priority = operation.priorityOverride { context.downloadPriority = priority }
        metrics.downloads.increment()
        // The final answer; the stream ends the wait when the task is cancelled, and ignores a
        // second final answer from a loader that breaks its contract.
        let (answers, answer) = AsyncStream.makeStream(of: LoaderAnswer.self, bufferingPolicy: .bufferingOldest(1))
        let token = request.loader.requestImage(
            with: request.url, options: request.options, context: context,
            progress: { received, expected, url in
                operation.progress(request.progress, received: received, expected: expected, url: url)
            },
            completed: { [self] result in
                guard !operation.isCancelled else { return answer.finish() }
                if case .success(let value) = result, !value.finished {
                    return previewArrived(value, request, operation)
                }
                var decoding: SharedDecodes.Handle?
                if case .success(let value) = result { decoding = beginDecode(value, request, operation) }
                answer.yield(LoaderAnswer(result: result, decoding: decoding))
                answer.finish()
            })
        if !operation.attach(token) { token.cancel() }
        var iterator = answers.makeAsyncIterator()
        guard let final = await iterator.next() else { throw .cancelled }
        try Self.checkCancellation()
        switch final.result {
        case .failure(.cacheNotModified) where revalidating:
            refreshDates(request)
            return nil
        case .failure(let error):
            recordFailedURL(error, request)
            throw error
        case .success(let value):
            if request.options.contains(.retryFailed) { failedURLs.remove(request.url) }
            metrics.downloadBytes.increment(by: Int64(value.data.count))
            return Download(value: value, decoding: final.decoding)
        }
    }

    /// The loader's final answer, as the download stage's stream carries it.
    private struct LoaderAnswer: Sendable {
        let result: Result<ImageLoaderResult, WebImageError>
        let decoding: SharedDecodes.Handle?
    }

    /// Puts the URL on the failed-URL list when the error is permanent and neither the loader
    /// nor the delegate objects (SPEC M-3). A bad page index (past the end) says nothing about
    /// the URL: not listed.
    func recordFailedURL(_ error: WebImageError, _ request: ImageLoadRequest) {
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
    /// from the last validation). In the background: the rewrite outlives the load.
    private func refreshDates(_ request: ImageLoadRequest) {
        guard let key = request.originalKey else { return }
        let disk = request.originalCache.diskCache
        Task {
            guard let data = disk.data(for: key) else { return }
            try? await disk.storeAndWait(data, forKey: key, extendedData: disk.extendedData(for: key))
        }
    }
}
