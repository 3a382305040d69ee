import Dispatch
import CoreMetrics
import Foundation
import Logging
import Synchronization

extension ImageManager {
    /// Loads `url` with a completion handler (SPEC M-1…M-11).
    ///
    /// - Parameters:
    ///   - url: the image's URL; `nil`, empty or scheme-less URLs complete at once with
    ///     ``/WebImageCore/WebImageError/invalidURL(_:)``.
    ///   - options: SDWebImage's options (``WebImageOptions``).
    ///   - context: typed per-request values (``WebImageContext``).
    ///   - progress: download progress, on the callback queue.
    ///   - completed: the outcome, on the callback queue (see ``ImageCompletionHandler`` for the
    ///     exactly-once rule and its two exceptions).
    /// - Returns: the load, cancellable; cancelling completes it with `cancelled`.
    @discardableResult
    public func loadImage(
        with url: URL?,
        options: WebImageOptions = [],
        context: WebImageContext = WebImageContext(),
        progress: ImageProgressHandler? = nil,
        completed: @escaping ImageCompletionHandler
    ) -> (any ImageOperation)? {
        start(url, options: options, context: context, progress: progress, completed: completed, ended: nil)
    }

    /// ``loadImage(with:options:context:progress:completed:)`` for a URL string (SPEC M-2): a
    /// string that is not a URL completes with `invalidURL`.
    @discardableResult
    public func loadImage(
        with urlString: String,
        options: WebImageOptions = [],
        context: WebImageContext = WebImageContext(),
        progress: ImageProgressHandler? = nil,
        completed: @escaping ImageCompletionHandler
    ) -> (any ImageOperation)? {
        guard let url = URL(string: urlString) else {
            let error = rejectedURLString(urlString)
            let queue = context.callbackQueue ?? callbackQueue
            queue.execute { completed(.failure(error)) }
            return nil
        }
        return loadImage(with: url, options: options, context: context, progress: progress, completed: completed)
    }

    /// Starts a load. `ended` runs once after the load ended, whichever way.
    /// - Returns: the operation, or `nil` when the load already ended (invalid URL, failed URL,
    ///   or a memory hit served on the fast path).
    /// The error for a string that is not a loadable URL, counted as a request that failed.
    func rejectedURLString(_ urlString: String) -> WebImageError {
        let error = WebImageError.invalidURL(urlString)
        metrics.requests.increment()
        metrics.failure(error)
        return error
    }

    @discardableResult
    func start(
        _ url: URL?, options: WebImageOptions, context: WebImageContext, progress: ImageProgressHandler?,
        completed: @escaping ImageCompletionHandler, ended: (@Sendable () -> Void)?
    ) -> ImageCombinedOperation? {
        metrics.requests.increment()
        let settings = self.settings.withLock { $0 }
        guard let url, Self.isLoadable(url) else {
            metrics.failure(.invalidURL(url?.absoluteString))
            (context.callbackQueue ?? settings.callbackQueue).execute { completed(.failure(.invalidURL(url?.absoluteString))) }
            ended?()
            return nil
        }
        // M-7: the options processor may rewrite anything.
        var settled = OptionsResult(options: options, context: Self.withDefaults(context, settings))
        if let processor = settings.optionsProcessor {
            settled = processor.process(url, settled)
        }
        let queue = settled.context.callbackQueue ?? settings.callbackQueue
        // M-3: a URL that failed before fails at once, touching nothing, unless retryFailed.
        if !settled.options.contains(.retryFailed) && failedURLs.contains(url) {
            metrics.blacklistHits.increment()
            PipelineMetrics.logger.debug("blocked failed URL", metadata: ["url": "\(url)"])
            queue.execute { completed(.failure(.blackListed)) }
            ended?()
            return nil
        }
        // K-1: a memory hit is synchronous — no request, no operation, no bookkeeping.
        let cache = settled.context.imageCache ?? imageCache
        if let image = memoryHit(url, settled, cache) {
            metrics.memoryHits.increment()
            if case .current = queue {
                completed(.success(ImageResult(image: image, cacheType: .memory, url: url)))
            } else {
                queue.execute { completed(.success(ImageResult(image: image, cacheType: .memory, url: url))) }
            }
            ended?()
            return nil
        }
        let startTime = DispatchTime.now().uptimeNanoseconds
        let request = ImageLoadRequest(
            url: url, options: settled.options, context: settled.context,
            cache: cache, loader: settled.context.imageLoader ?? imageLoader,
            progress: progress, startTime: startTime)
        let operation = ImageCombinedOperation(url: url, queue: queue, completion: completed) { [weak self] operation in
            self?.unregister(operation)
            ended?()
        }
        register(operation)
        scheduleLoadDeadline(request.context.maximumLoadDuration, for: operation)
        // A preview left in memory by a download of the same image still going on: shown
        // first, while this load goes on (Nuke's previews in memory).
        if let preview = memoryPreview(request) {
            operation.deliver(ImageResult(image: preview, cacheType: .memory, url: url, isFinal: false))
        }
        if request.options.contains(.fromLoaderOnly) || request.finalKey == nil {
            decideDownload(request, operation, cached: nil)
        } else {
            queryCache(request, operation)
        }
        return operation
    }

    /// The memory-cache image when the fast path applies: the request reads the cache and
    /// memory, wants no revalidation and no bytes, and the image is there.
    private func memoryHit(_ url: URL, _ settled: OptionsResult, _ cache: ImageCache) -> Image? {
        let options = settled.options
        guard !options.contains(.fromLoaderOnly), !options.contains(.refreshCached),
            !options.contains(.queryMemoryData), !options.contains(.avoidDecodeImage),
            (settled.context.queryCacheType ?? .all).includesMemory,
            let key = ImageLoadRequest.keys(for: url, context: settled.context).final,
            let image = cache.imageFromMemoryCache(forKey: key)
        else { return nil }
        return ImageCache.applyingFrameOptions(image, options: options)
    }

    /// The progressive preview kept in memory for this request's final key, when the request
    /// takes previews (`progressiveLoad`) and may read memory.
    private func memoryPreview(_ request: ImageLoadRequest) -> Image? {
        let options = request.options
        guard options.contains(.progressiveLoad), !options.contains(.fromLoaderOnly), !options.contains(.avoidDecodeImage),
            (request.context.queryCacheType ?? .all).includesMemory, let key = request.finalKey
        else { return nil }
        return request.cache.memoryCache.image(forKey: ImageCache.previewCacheKey(for: key))
    }

    /// Keeps a delivered progressive preview in memory under the preview key of the final key
    /// (never on disk), so another view of the image can show it while the download goes on.
    func storePreview(_ image: Image, _ request: ImageLoadRequest) {
        let cache = request.cache
        guard (request.context.storeCacheType ?? .all).includesMemory, cache.configuration.shouldCacheImagesInMemory,
            let key = request.finalKey
        else { return }
        cache.memoryCache.setImage(image, forKey: ImageCache.previewCacheKey(for: key))
    }

    /// Forgets the memory preview once the load has its final outcome.
    func removePreview(_ request: ImageLoadRequest) {
        guard request.options.contains(.progressiveLoad), let key = request.finalKey else { return }
        request.cache.memoryCache.removeImage(forKey: ImageCache.previewCacheKey(for: key))
    }

    /// A URL the pipeline can take: it has a scheme (RFC 3986: a letter, then letters, digits,
    /// `+`, `-` or `.`, then `:`). Checked on the string, which is cheaper than parsing `scheme`.
    static func isLoadable(_ url: URL) -> Bool {
        var utf8 = url.absoluteString.utf8.makeIterator()
        guard let first = utf8.next(), (first | 0x20) >= UInt8(ascii: "a"), (first | 0x20) <= UInt8(ascii: "z") else {
            return false
        }
        while let byte = utf8.next() {
            switch byte {
            case UInt8(ascii: ":"): return true
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."):
                continue
            default: return false
            }
        }
        return false
    }

    // MARK: cache

    /// Queries the final key; on a miss, the original key when the context asks for it
    /// (SPEC Q-5), transforming what it finds.
    private func queryCache(_ request: ImageLoadRequest, _ operation: ImageCombinedOperation) {
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

    /// Looks for the original image and derives the final one from it (thumbnail decode of the
    /// original bytes, then the transformer), storing the result under the final key.
    private func queryOriginal(
        _ request: ImageLoadRequest, _ operation: ImageCombinedOperation, key: String, cacheType: ImageCacheType
    ) {
        // The original query decodes with this request's options (a thumbnail when asked); that
        // image is not the original, so it must not be kept in memory under the original key.
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
            Task {
                let derived: Image?
                do throws(WebImageError) {
                    derived = try await transform(image, request, operation)
                } catch {
                    return fail(error, request, operation)
                }
                guard !operation.isCancelled else { return }
                guard let derived else {
                    return decideDownload(request, operation, cached: nil)
                }
                await store(
                    derived, data: nil, key: request.finalKey, cacheType: request.context.storeCacheType ?? .all,
                    request: request, operation: operation, extendedData: nil)
                decideDownload(request, operation, cached: ImageCacheQueryResult(image: derived, cacheType: result.cacheType))
            }
        }
        if !operation.attach(token) { token.cancel() }
    }

    static func isHit(_ result: ImageCacheQueryResult, _ options: WebImageOptions) -> Bool {
        result.image != nil || (options.contains(.avoidDecodeImage) && result.data != nil)
    }

    func countHit(_ cacheType: ImageCacheType) {
        if cacheType == .memory { metrics.memoryHits.increment() } else { metrics.diskHits.increment() }
    }

    // MARK: download decision (M-8)

    private func decideDownload(
        _ request: ImageLoadRequest, _ operation: ImageCombinedOperation, cached: ImageCacheQueryResult?
    ) {
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
        } else if let image = memoryHitBeforeDownload(request) {
            // The same image finished loading for another request while this one was querying
            // the disk: use it rather than download it again.
            metrics.memoryHits.increment()
            operation.end(.success(ImageResult(image: image, cacheType: .memory, url: request.url)))
            return
        }
        download(request, operation, hasCachedImage: cachedResult != nil)
    }

    /// A last memory check before downloading, for requests that may read memory and did not
    /// ask for a fresh download.
    private func memoryHitBeforeDownload(_ request: ImageLoadRequest) -> Image? {
        let options = request.options
        guard !options.contains(.fromLoaderOnly), !options.contains(.refreshCached),
            !options.contains(.avoidDecodeImage), (request.context.queryCacheType ?? .all).includesMemory,
            let key = request.finalKey, let image = request.cache.imageFromMemoryCache(forKey: key)
        else { return nil }
        return ImageCache.applyingFrameOptions(image, options: options)
    }

    // MARK: download

    private func download(_ request: ImageLoadRequest, _ operation: ImageCombinedOperation, hasCachedImage: Bool) {
        var context = request.context
        if request.options.contains(.refreshCached), let key = request.originalKey,
            let extended = request.originalCache.diskCache.extendedData(for: key)
        {
            let validators = HTTPCacheValidators(entityTag: extended.eTag, lastModified: extended.lastModified)
            if !validators.isEmpty { context.cachedResponseValidators = validators }
        }
        // A priority set on the operation while the cache was queried starts the download.
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
            // A bad page index (past the end) says nothing about the URL: not listed.
            let pageError: Bool
            if case .badImageData = error { pageError = request.context.imagePageIndex != nil } else { pageError = false }
            let loaderAllows =
                !pageError && request.loader.shouldBlockFailedURL(request.url, error: error)
                && (delegate?.imageManager(self, shouldBlockFailedURL: request.url, error: error) ?? true)
            if failedURLs.recordFailure(request.url, error: error, loaderAllows: loaderAllows) {
                PipelineMetrics.logger.info("URL added to the failed list", metadata: ["url": "\(request.url)", "error": "\(error.code)"])
            }
            metrics.failure(error)
            removePreview(request)
            operation.end(.failure(error))
        case .success(let value) where !value.finished:
            if let image = value.image, request.shouldTransform(image) {
                transformPreview(image, request, operation)
            } else {
                if let image = value.image { storePreview(image, request) }
                operation.deliver(ImageResult(image: value.image, data: value.data, cacheType: .none, url: request.url, isFinal: false))
            }
        case .success(let value):
            if request.options.contains(.retryFailed) { failedURLs.remove(request.url) }
            metrics.downloadBytes.increment(by: Int64(value.data.count))
            // Without a transform, the memory cache is filled right here, synchronously: the
            // downloader has just ended this download, and a request for the same URL arriving
            // before the asynchronous part below must find the image instead of downloading it
            // again.
            let transforms = value.image.map { request.shouldTransform($0) } ?? false
            if !transforms, let image = value.image {
                storeInMemoryUntransformed(image, request, operation)
            }
            Task { await finishDownload(value, request, operation, memoryStored: !transforms) }
        }
    }

    /// Runs the transformer on a progressive preview (SPEC D-8, M-9) on the cache's pool and
    /// delivers the result (without data: the bytes describe the original). Cheap by design:
    /// while one preview is being transformed, newer ones are dropped, not queued; a load
    /// cancelled before the job gets a thread skips it; and the final result waits for a
    /// preview in flight (``ImageCombinedOperation/closePreviews()``), so none follows it.
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

    /// The memory part of the stores of ``finishDownload(_:_:_:memoryStored:)`` when no transform
    /// runs: the same keys and cache types, done synchronously.
    private func storeInMemoryUntransformed(_ image: Image, _ request: ImageLoadRequest, _ operation: ImageCombinedOperation) {
        let cache = request.cache
        guard !operation.isCancelled else { return }
        let storeType = request.context.storeCacheType ?? .all
        if request.hasDerivedKey {
            let originalType = request.context.originalStoreCacheType ?? .disk
            let originalCache = request.originalCache
            if originalType.includesMemory, !request.context.decodesDerivedImage, let key = request.originalKey,
                originalCache.configuration.shouldCacheImagesInMemory
            {
                originalCache.memoryCache.setImage(image, forKey: key)
            }
            if request.transformer == nil, storeType.includesMemory, let key = request.finalKey,
                cache.configuration.shouldCacheImagesInMemory
            {
                cache.memoryCache.setImage(image, forKey: key)
            }
        } else if storeType.includesMemory, let key = request.finalKey, cache.configuration.shouldCacheImagesInMemory {
            cache.memoryCache.setImage(image, forKey: key)
        }
    }

    /// Transform, store (original and/or final, per the cache types), deliver (SPEC M-9).
    /// `memoryStored`: the memory layer was already filled by ``storeInMemoryUntransformed(_:_:_:)``.
    private func finishDownload(
        _ value: ImageLoaderResult, _ request: ImageLoadRequest, _ operation: ImageCombinedOperation, memoryStored: Bool
    ) async {
        // A preview still being transformed is delivered before the final result, never after.
        if request.transformer != nil, request.options.contains(.progressiveLoad) {
            await operation.closePreviews()
        }
        let original = value.image
        var final = original
        var transformed = false
        if let original, request.shouldTransform(original) {
            do throws(WebImageError) {
                if let result = try await transform(original, request, operation) {
                    final = result
                    transformed = true
                }
            } catch {
                return fail(error, request, operation)
            }
        }
        guard !operation.isCancelled else { return }

        let validators = value.response?.validators ?? HTTPCacheValidators()
        let extended = DiskCacheExtendedData(
            originalURL: request.url.absoluteString, contentType: value.response?.contentType,
            eTag: validators.entityTag, lastModified: validators.lastModified)
        let storeType = request.context.storeCacheType ?? .all
        if request.hasDerivedKey {
            // The original: its bytes (and, when it was decoded at full size, its image).
            let originalType = request.context.originalStoreCacheType ?? .disk
            let fullSize = request.context.decodesDerivedImage ? nil : original
            await store(
                fullSize, data: value.data, key: request.originalKey, cacheType: originalType, request: request,
                operation: operation, extendedData: extended, includeMemory: !memoryStored, in: request.originalCache)
            // The derived image, only when it really is derived (a failed transform stores nothing).
            let derivedIsReady = transformed || (request.transformer == nil && final != nil)
            if derivedIsReady, let final {
                await store(
                    final, data: nil, key: request.finalKey, cacheType: storeType, request: request,
                    operation: operation, extendedData: nil, includeMemory: !memoryStored)
            }
        } else {
            await store(
                final, data: value.data, key: request.finalKey, cacheType: storeType, request: request,
                operation: operation, extendedData: extended, includeMemory: !memoryStored)
        }
        // The final image replaces the preview (previews never outlive their download).
        removePreview(request)
        guard !operation.isCancelled else { return }
        metrics.loadDuration(source: .none, since: request.startTime)
        // The downloaded bytes describe the original, not a transformed image: a transformed
        // result carries no data (as SDWebImage's).
        let data = transformed ? nil : value.data
        operation.end(.success(ImageResult(image: final, data: data, cacheType: .none, url: request.url)))
    }

    /// Runs the transformer on the cache's processing pool (never on the caller's or a network
    /// thread), shared with the other loads of the same decoded image and transformer (prefix)
    /// in flight (``SharedTransforms``). A transform whose loads were all cancelled while it
    /// waited for a thread never starts (SPEC M-10).
    ///
    /// - Throws: `imageTooLarge` when the transformer's output exceeds the load's
    ///   decoded-bytes budget (``checkTransformBudget(_:of:_:)``).
    func transform(
        _ image: Image, _ request: ImageLoadRequest, _ operation: ImageCombinedOperation
    ) async throws(WebImageError) -> Image? {
        guard let transformer = request.transformer, request.shouldTransform(image) else { return image }
        guard !operation.isCancelled else { return nil }
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

    /// Ends the load with `error` (a transform's budget refusal): counted as a failure, the
    /// preview removed; the URL is not put on the failed-URL list (the bytes were fine).
    private func fail(_ error: WebImageError, _ request: ImageLoadRequest, _ operation: ImageCombinedOperation) {
        guard !operation.isCancelled else { return }
        metrics.failure(error)
        removePreview(request)
        operation.end(.failure(error))
    }

    /// Stores into the layers of `cacheType` of `target` (default: the load's cache): memory at once (unless the load was cancelled,
    /// SPEC M-10), disk in the background or, with `waitStoreCache`, before returning.
    private func store(
        _ image: Image?, data: Data?, key: String?, cacheType: ImageCacheType, request: ImageLoadRequest,
        operation: ImageCombinedOperation, extendedData: DiskCacheExtendedData?, includeMemory: Bool = true,
        in target: ImageCache? = nil
    ) async {
        guard let key, cacheType != .none, !operation.isCancelled else { return }
        let cache = target ?? request.cache
        if includeMemory, cacheType.includesMemory, let image, cache.configuration.shouldCacheImagesInMemory {
            cache.memoryCache.setImage(image, forKey: key)
        }
        guard cacheType.includesDisk, image != nil || data != nil else { return }
        let context = request.context
        let write: @Sendable () async -> Void = {
            do {
                try await cache.store(image, imageData: data, forKey: key, cacheType: .disk, context: context, extendedData: extendedData)
            } catch {
                PipelineMetrics.logger.warning("disk store failed", metadata: ["key": "\(key)", "error": "\(error)"])
            }
        }
        if request.options.contains(.waitStoreCache) {
            await write()
        } else {
            Task { await write() }
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
