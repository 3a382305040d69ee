import Foundation
import Synchronization

/// Warms the caches with images before they are needed (SPEC P-1, P-2).
///
/// Each ``prefetchURLs(_:options:context:progress:completed:)`` call is a batch with its own
/// ``PrefetchToken``; batches run side by side and share ``maxConcurrentPrefetchCount`` loads.
/// Loads run at low priority by default. A URL already in a cache finishes as soon as the
/// manager answers from it; a failed URL counts as skipped.
public final class ImagePrefetcher: Sendable {
    /// Options added to every prefetch (default `.lowPriority`).
    public let options: WebImageOptions
    /// Context of every prefetch.
    public let context: WebImageContext
    private let explicitManager: (any ImageManaging)?
    private let state: Mutex<State>

    private struct State {
        var scheduler: PrefetchScheduler
        var operations: [ItemKey: any ImageOperation] = [:]
        var handlers: [Int: Handlers] = [:]
        var observer: (@Sendable (URL, Result<ImageResult, WebImageError>) -> Void)?
    }

    private struct ItemKey: Hashable {
        let batch: Int
        let index: Int
    }

    /// What one batch was started with: its own options, context and handlers (SPEC P-2).
    private struct Handlers {
        var options: WebImageOptions
        var context: WebImageContext
        var progress: (@Sendable (_ finished: Int, _ total: Int) -> Void)?
        var completed: (@Sendable (_ finished: Int, _ skipped: Int) -> Void)?
    }

    /// A prefetcher loading through `manager` (default: ``WebImageDefaults/manager``).
    public init(
        manager: (any ImageManaging)? = nil,
        maxConcurrentPrefetchCount: Int = 3,
        options: WebImageOptions = [.lowPriority],
        context: WebImageContext = WebImageContext()
    ) {
        explicitManager = manager
        self.options = options
        self.context = context
        state = Mutex(State(scheduler: PrefetchScheduler(maxConcurrent: maxConcurrentPrefetchCount)))
    }

    /// At most this many loads run at once across all batches (default 3).
    public var maxConcurrentPrefetchCount: Int {
        get { state.withLock { $0.scheduler.maxConcurrent } }
        set { state.withLock { $0.scheduler.maxConcurrent = max(1, newValue) } }
    }

    /// Called for every URL as it ends (success or failure), from any thread.
    public func setObserver(_ observer: (@Sendable (URL, Result<ImageResult, WebImageError>) -> Void)?) {
        state.withLock { $0.observer = observer }
    }

    /// Loads running now.
    public var runningCount: Int { state.withLock { $0.scheduler.runningCount } }

    /// Starts a batch.
    /// - Parameters:
    ///   - urls: the images to load, in order.
    ///   - extraOptions: options added to the prefetcher's ``options`` for this batch.
    ///   - extraContext: context values laid over the prefetcher's ``context`` for this batch.
    ///   - progress: after each URL ends: URLs done (finished + skipped) and the total.
    ///   - completed: once, when every URL ended or the batch was cancelled.
    @discardableResult
    public func prefetchURLs(
        _ urls: [URL],
        options extraOptions: WebImageOptions = [],
        context extraContext: WebImageContext? = nil,
        progress: (@Sendable (_ finished: Int, _ total: Int) -> Void)? = nil,
        completed: (@Sendable (_ finished: Int, _ skipped: Int) -> Void)? = nil
    ) -> PrefetchToken {
        let loadOptions = options.union(extraOptions)
        let loadContext = extraContext.map { context.merging($0) } ?? context
        let (batch, actions) = state.withLock { state -> (Int, [PrefetchScheduler.Action]) in
            let (batch, actions) = state.scheduler.add(urls)
            state.handlers[batch] = Handlers(
                options: loadOptions, context: loadContext, progress: progress, completed: completed)
            return (batch, actions)
        }
        let token = PrefetchToken(prefetcher: self, batch: batch)
        perform(actions)
        return token
    }

    /// Cancels every batch.
    public func cancelPrefetching() {
        let actions = state.withLock { $0.scheduler.cancelAll() }
        perform(actions)
    }

    func cancel(batch: Int) {
        let actions = state.withLock { $0.scheduler.cancel(batch: batch) }
        perform(actions)
    }

    /// Performs the scheduler's actions; each start uses the options and context of the batch
    /// the item belongs to, whichever batch's event freed the slot.
    private func perform(_ actions: [PrefetchScheduler.Action]) {
        for action in actions {
            switch action {
            case .start(let batch, let index, let url):
                guard let handlers = state.withLock({ $0.handlers[batch] }) else { continue }
                start(url, batch: batch, index: index, options: handlers.options, context: handlers.context)
            case .cancel(let batch, let index):
                let operation = state.withLock { $0.operations[ItemKey(batch: batch, index: index)] }
                operation?.cancel()
            case .progress(let batch, let finished, let total):
                let handler = state.withLock { $0.handlers[batch]?.progress }
                handler?(finished, total)
            case .complete(let batch, let finished, let skipped):
                let handler = state.withLock { $0.handlers.removeValue(forKey: batch)?.completed }
                handler?(finished, skipped)
            }
        }
    }

    private func start(_ url: URL, batch: Int, index: Int, options: WebImageOptions, context: WebImageContext) {
        let key = ItemKey(batch: batch, index: index)
        let manager = context.customManager ?? explicitManager ?? WebImageDefaults.manager
        let operation = manager.loadImage(
            with: url, options: options, context: context, progress: nil,
            completed: { [weak self] result in
                if case .success(let value) = result, !value.isFinal { return }
                self?.itemEnded(key, url: url, result: result)
            })
        guard let operation else { return }
        // The load may have ended synchronously inside loadImage (then there is nothing to
        // record), or its batch may have been cancelled meanwhile (then cancel it now).
        let cancelNow = state.withLock { state -> Bool in
            guard state.scheduler.isRunning(batch: batch, index: index) else { return false }
            if state.scheduler.isCancelled(batch: batch) { return true }
            state.operations[key] = operation
            return false
        }
        if cancelNow { operation.cancel() }
    }

    private func itemEnded(_ key: ItemKey, url: URL, result: Result<ImageResult, WebImageError>) {
        let succeeded: Bool
        if case .success = result { succeeded = true } else { succeeded = false }
        let (actions, observer) = state.withLock { state in
            state.operations[key] = nil
            return (state.scheduler.itemEnded(batch: key.batch, index: key.index, succeeded: succeeded), state.observer)
        }
        observer?(url, result)
        perform(actions)
    }
}

/// One prefetch batch; ``cancel()`` stops its queued and running loads (SPEC P-2).
public final class PrefetchToken: Sendable {
    private weak let prefetcher: ImagePrefetcher?
    private let batch: Int

    init(prefetcher: ImagePrefetcher, batch: Int) {
        self.prefetcher = prefetcher
        self.batch = batch
    }

    /// Cancels this batch only. Its `completed` handler runs once, counting what did not
    /// finish as skipped.
    public func cancel() {
        prefetcher?.cancel(batch: batch)
    }
}
