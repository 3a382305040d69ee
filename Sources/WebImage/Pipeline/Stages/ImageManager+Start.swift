import CoreMetrics
import Dispatch
import Foundation
import Logging
import Synchronization

extension ImageManager {
    /// The first stage of a load: settles the request and answers at once what needs no work.
    ///
    /// In order: the URL must be loadable (else `invalidURL`); the options processor may
    /// rewrite options and context (SPEC M-7); a URL that failed before fails at once unless
    /// `retryFailed` (SPEC M-3); the cache keys are computed, once for the whole load; a memory
    /// hit is delivered synchronously with no operation and no bookkeeping (SPEC K-1). Anything
    /// else becomes an ``ImageCombinedOperation``, which shows a preview another download of
    /// the image left in memory, then goes on to the cache query (or, with `fromLoaderOnly` or
    /// no cache key, straight to the download decision).
    ///
    /// `ended` runs once after the load ended, whichever way.
    /// - Returns: the operation, or `nil` when the load already ended (invalid URL, failed URL,
    ///   or a memory hit served on the fast path).
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
        var settled = OptionsResult(options: options, context: Self.withDefaults(context, settings))
        if let processor = settings.optionsProcessor {
            settled = processor.process(url, settled)
        }
        let queue = settled.context.callbackQueue ?? settings.callbackQueue
        if !settled.options.contains(.retryFailed) && failedURLs.contains(url) {
            metrics.blacklistHits.increment()
            PipelineMetrics.logger.debug("blocked failed URL", metadata: ["url": "\(url)"])
            queue.execute { completed(.failure(.blackListed)) }
            ended?()
            return nil
        }
        let cache = settled.context.imageCache ?? imageCache
        let keys = ImageLoadRequest.keys(for: url, context: settled.context)
        if let image = Self.memoryImage(
            .fastPath, key: keys.final, in: cache, options: settled.options, context: settled.context)
        {
            metrics.memoryHits.increment()
            if case .current = queue {
                completed(.success(ImageResult(image: image, cacheType: .memory, url: url)))
            } else {
                queue.execute { completed(.success(ImageResult(image: image, cacheType: .memory, url: url))) }
            }
            ended?()
            return nil
        }
        let request = ImageLoadRequest(
            url: url, keys: keys, options: settled.options, context: settled.context,
            cache: cache, loader: settled.context.imageLoader ?? imageLoader,
            progress: progress, startTime: DispatchTime.now().uptimeNanoseconds)
        let transforms = request.transformer != nil
        let operation = ImageCombinedOperation(url: url, queue: queue, completion: completed) { [weak self] operation in
            // The load stored its result (or ended without one): shared transforms it asked
            // for need not be kept for it any longer.
            if transforms { self?.sharedTransforms.release(operation) }
            self?.unregister(operation)
            ended?()
        }
        register(operation)
        scheduleLoadDeadline(request.context.maximumLoadDuration, for: operation)
        showMemoryPreview(request, operation)
        if request.options.contains(.fromLoaderOnly) || request.finalKey == nil {
            decideDownload(request, operation, cached: nil)
        } else {
            queryCache(request, operation)
        }
        return operation
    }
}
