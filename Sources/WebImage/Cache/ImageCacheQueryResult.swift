import Foundation
import Synchronization
import WebImageCore

/// What an ``ImageCache`` query found (SPEC Q-1).
public struct ImageCacheQueryResult: Sendable {
    /// The image, when found and decoded (`nil` with ``WebImageOptions/avoidDecodeImage``).
    public var image: Image?
    /// The encoded bytes, when read from disk.
    public var data: Data?
    /// Where it was found: `.memory`, `.disk`, or `.none` for a miss.
    public var cacheType: ImageCacheType
    /// Whether the query was cancelled before it finished (then nothing else is set).
    public var isCancelled: Bool

    /// A result with the given fields (default: a miss).
    public init(image: Image? = nil, data: Data? = nil, cacheType: ImageCacheType = .none, isCancelled: Bool = false) {
        self.image = image
        self.data = data
        self.cacheType = cacheType
        self.isCancelled = isCancelled
    }

    /// A miss.
    public static let miss = ImageCacheQueryResult()
    /// A cancelled query.
    public static let cancelled = ImageCacheQueryResult(isCancelled: true)
}

/// A running ``ImageCache`` query (SPEC Q-2). ``cancel()`` ends it: its completion runs at once
/// with a cancelled result, the image is not decoded (unless decoding already started) and
/// nothing is written to the memory cache. The completion runs exactly once either way.
///
/// A query made with a completion hands its result to it; one made by the async
/// ``ImageCache/queryImage(forKey:options:context:cacheType:)`` keeps the result until the
/// caller awaits it (`result()`), so the token exists before the task's cancellation handler
/// can run and no holder is needed.
public final class ImageCacheToken: Sendable {
    private enum State {
        /// A query with a completion, not finished yet.
        case running(@Sendable (ImageCacheQueryResult) -> Void)
        /// An awaited query: its waiter (once the caller awaits) and whether the query (or a
        /// cancel) claimed the end.
        case awaited(waiter: CheckedContinuation<ImageCacheQueryResult, Never>?, claimed: Bool)
        /// Finished; an awaited query keeps its result here until the caller awaits it.
        case finished(ImageCacheQueryResult?)
    }

    private let state: Mutex<State>

    init(completion: @escaping @Sendable (ImageCacheQueryResult) -> Void) {
        state = Mutex(.running(completion))
    }

    /// A token for an awaited query (``result()``).
    init() {
        state = Mutex(.awaited(waiter: nil, claimed: false))
    }

    /// Whether the query was cancelled or has finished.
    public var isFinished: Bool {
        state.withLock {
            switch $0 {
            case .running: false
            case .awaited(_, let claimed): claimed
            case .finished: true
            }
        }
    }

    /// Cancels the query; its completion runs now with ``ImageCacheQueryResult/cancelled``
    /// unless it already ran.
    public func cancel() {
        let completion = claim()
        completion?(.cancelled)
    }

    /// Takes the completion, if nobody did yet (the query finishing or a cancel).
    func claim() -> (@Sendable (ImageCacheQueryResult) -> Void)? {
        state.withLock { state in
            switch state {
            case .running(let completion):
                state = .finished(nil)
                return completion
            case .awaited(let waiter, claimed: false):
                state = .awaited(waiter: waiter, claimed: true)
                return { [self] result in hand(result) }
            case .awaited, .finished:
                return nil
            }
        }
    }

    /// The end of an awaited query: resumes the waiter, or keeps `result` for it.
    private func hand(_ result: ImageCacheQueryResult) {
        let waiter = state.withLock { state -> CheckedContinuation<ImageCacheQueryResult, Never>? in
            guard case .awaited(let waiter, _) = state else { return nil }
            state = .finished(waiter == nil ? result : nil)
            return waiter
        }
        waiter?.resume(returning: result)
    }

    /// The result of an awaited query, once it finished or was cancelled.
    func result() async -> ImageCacheQueryResult {
        await withCheckedContinuation { (continuation: CheckedContinuation<ImageCacheQueryResult, Never>) in
            let ready = state.withLock { state -> ImageCacheQueryResult? in
                switch state {
                case .awaited(nil, let claimed):
                    state = .awaited(waiter: continuation, claimed: claimed)
                    return nil
                case .finished(let result):
                    state = .finished(nil)
                    return result ?? .cancelled
                case .running, .awaited:
                    return .cancelled
                }
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// The result of an awaited query that has finished, taken; `nil` while it runs.
    func takeResultIfFinished() -> ImageCacheQueryResult? {
        state.withLock { state in
            guard case .finished(let result?) = state else { return nil }
            state = .finished(nil)
            return result
        }
    }

    /// Finishes with `result`, first running `commit` (e.g. the memory-cache write) — only when
    /// not cancelled. Returns whether it finished (`false`: it had been cancelled).
    @discardableResult
    func finish(_ result: ImageCacheQueryResult, commit: () -> Void = {}) -> Bool {
        guard let completion = claim() else { return false }
        commit()
        completion(result)
        return true
    }
}
