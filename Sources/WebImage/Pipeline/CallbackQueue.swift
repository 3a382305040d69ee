import Dispatch

/// Where a load's callbacks (progress and completion) run (SPEC M-11).
public enum CallbackQueue: Sendable {
    /// Synchronously on whichever thread finished the work (a cache hit: the caller's thread;
    /// a download: a processing-pool thread). The fastest, for servers and tools. Callbacks
    /// must not block.
    case current
    /// The main dispatch queue (the main actor): for UI code.
    case main
    /// A queue of your choice.
    case queue(DispatchQueue)

    /// The default: `.main` where a UI toolkit exists (Apple platforms), `.current` on Linux,
    /// where a command-line tool or server may never run the main queue.
    public static var platformDefault: CallbackQueue {
        #if canImport(UIKit) || canImport(AppKit)
            .main
        #else
            .current
        #endif
    }

    /// Runs `work` on this queue.
    func execute(_ work: @escaping @Sendable () -> Void) {
        switch self {
        case .current: work()
        case .main: DispatchQueue.main.async(execute: work)
        case .queue(let queue): queue.async(execute: work)
        }
    }
}

private enum CallbackQueueKey: WebImageContextKey { typealias Value = CallbackQueue }
private enum ImageTransformerKey: WebImageContextKey { typealias Value = any ImageTransformer }

extension WebImageContext {
    /// Where this request's callbacks run (default: the manager's ``ImageManager/callbackQueue``).
    public var callbackQueue: CallbackQueue? {
        get { self[CallbackQueueKey.self] }
        set { self[CallbackQueueKey.self] = newValue }
    }

    /// Transforms the loaded image before it is cached and delivered (SPEC M-9, T-1); its key
    /// becomes part of the cache key (SPEC Q-4). Default: the manager's
    /// ``ImageManager/transformer``.
    public var imageTransformer: (any ImageTransformer)? {
        get { self[ImageTransformerKey.self] }
        set { self[ImageTransformerKey.self] = newValue }
    }
}
