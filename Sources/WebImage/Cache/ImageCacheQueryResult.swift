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
public final class ImageCacheToken: Sendable {
    private enum State {
        case running(@Sendable (ImageCacheQueryResult) -> Void)
        case finished
    }

    private let state: Mutex<State>

    init(completion: @escaping @Sendable (ImageCacheQueryResult) -> Void) {
        state = Mutex(.running(completion))
    }

    /// Whether the query was cancelled or has finished.
    public var isFinished: Bool {
        state.withLock { if case .finished = $0 { true } else { false } }
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
            guard case .running(let completion) = state else { return nil }
            state = .finished
            return completion
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
