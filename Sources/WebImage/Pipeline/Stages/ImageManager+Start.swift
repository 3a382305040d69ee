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
    /// hit is delivered synchronously with no operation and no bookkeeping (SPEC K-1); with the
    /// synchronous query options (`queryDiskDataSync`) the final key's disk entry is read here
    /// too, and a hit ends the load likewise. Anything else becomes an ``ImageCombinedOperation`` over one task running the load's async line
    /// (``ImageLoad/run()``); a preview another download of the image left in memory is shown
    /// first.
    ///
    /// `ended` runs once after the load ended, whichever way.
    /// - Returns: the operation, or `nil` when the load already ended (invalid URL, failed URL,
    ///   or a memory hit served on the fast path).
    @discardableResult
    func start(
        _ url: URL?, options: WebImageOptions, context: WebImageContext, progress: ImageProgressHandler?,
        completed: @escaping ImageCompletionHandler, ended: (@Sendable () -> Void)?
    ) -> ImageCombinedOperation? {
        switch prefix(url, options: options, context: context, progress: progress) {
        case .ended(let result, let queue):
            // `.current` is called directly: no closure is made on the memory fast path.
            if case .current = queue { completed(result) } else { queue.execute { completed(result) } }
            ended?()
            return nil
        case .load(let request, let queue):
            return begin(request, queue: queue, keepsOutcome: false, completed: completed, ended: ended)
        }
    }

    /// What the synchronous prefix decided.
    enum Prefix {
        /// The load ended at once with this result, to deliver on this queue.
        case ended(Result<ImageResult, WebImageError>, CallbackQueue)
        /// The load goes on, its callbacks on this queue.
        case load(ImageLoadRequest, CallbackQueue)
    }

    /// The synchronous prefix of a load (see ``start(_:options:context:progress:completed:ended:)``).
    func prefix(
        _ url: URL?, options: WebImageOptions, context: WebImageContext, progress: ImageProgressHandler?
    ) -> Prefix {
        metrics.requests.increment()
        let settings = self.settings
        guard let url, Self.isLoadable(url) else {
            metrics.failure(.invalidURL(url?.absoluteString))
            return .ended(.failure(.invalidURL(url?.absoluteString)), context.callbackQueue ?? settings.callbackQueue)
        }
        var settled = OptionsResult(options: options, context: Self.withDefaults(context, settings))
        if let processor = settings.optionsProcessor {
            settled = processor.process(url, settled)
        }
        let queue = settled.context.callbackQueue ?? settings.callbackQueue
        if !settled.options.contains(.retryFailed) && failedURLs.contains(url) {
            metrics.blacklistHits.increment()
            PipelineMetrics.logger.debug("blocked failed URL", metadata: ["url": "\(url)"])
            return .ended(.failure(.blackListed), queue)
        }
        let cache = settled.context.imageCache ?? imageCache
        let keys = ImageLoadRequest.keys(for: url, context: settled.context)
        if let image = Self.memoryImage(
            .fastPath, key: keys.final, in: cache, options: settled.options, context: settled.context)
        {
            metrics.memoryHits.increment()
            return .ended(.success(ImageResult(image: image, cacheType: .memory, url: url)), queue)
        }
        var request = ImageLoadRequest(
            url: url, keys: keys, options: settled.options, context: settled.context,
            cache: cache, loader: settled.context.imageLoader ?? imageLoader,
            progress: progress, startTime: DispatchTime.now().uptimeNanoseconds)
        request.memoryLooked = Self.fastPathLooks(key: keys.final, options: settled.options, context: settled.context)
        if !request.options.contains(.fromLoaderOnly), let key = keys.final,
            let found = cache.querySynchronously(
                forKey: key, options: request.options, context: request.context, cacheType: request.finalQueryCacheType)
        {
            // The synchronous query options: the final key is read here, on the caller's
            // thread. A hit with no revalidation to do ends the load here (M-8); anything else
            // goes on from what was found.
            if Self.isHit(found, request.options) && !request.options.contains(.refreshCached) {
                countHit(found.cacheType)
                metrics.loadDuration(source: found.cacheType, since: request.startTime)
                return .ended(.success(ImageResult(image: found.image, data: found.data, cacheType: found.cacheType, url: url)), queue)
            }
            request.prequeried = found
        }
        return .load(request, queue)
    }

    /// The handle and the task of a load past the synchronous prefix.
    func begin(
        _ request: ImageLoadRequest, queue: CallbackQueue, keepsOutcome: Bool, completed: @escaping ImageCompletionHandler,
        ended: (@Sendable () -> Void)?
    ) -> ImageCombinedOperation {
        let transforms = request.transformer != nil
        let operation = ImageCombinedOperation(
            url: request.url, queue: queue, keepsOutcome: keepsOutcome, completion: completed
        ) { [weak self] operation in
            // The load stored its result (or ended without one): shared decodes and transforms
            // it asked for need not be kept for it any longer.
            self?.sharedDecodes.release(operation)
            if transforms { self?.sharedTransforms.release(operation) }
            self?.unregister(operation)
            ended?()
        }
        register(operation)
        scheduleLoadDeadline(request.context.maximumLoadDuration, for: operation)
        showMemoryPreview(request, operation)
        let load = ImageLoad(manager: self, request: request, operation: operation)
        // The load outlives this call: its line runs in a task of its own, which the handle
        // cancels.
        let task = Task { await load.run() }
        if !operation.attach(task) { task.cancel() }
        return operation
    }
}
