import Foundation
import Synchronization

/// One load as its caller sees it: the cache query and the download behind one cancellable
/// handle (SPEC M-10).
///
/// Delivery rules, decided under one lock so that every path obeys them:
/// - the load **ends** exactly once: with a result, an error, ``/WebImageCore/WebImageError/cancelled``,
///   or silently (a `refreshCached` 304 after the cached image was delivered);
/// - nothing is delivered after the end;
/// - cancelling ends the load with `cancelled` unless it already ended, and cancels the cache
///   query and the loader token.
final class ImageCombinedOperation: ImageOperation {
    private struct State {
        var cancelled = false
        var ended = false
        var cacheToken: ImageCacheToken?
        var loaderToken: (any ImageLoaderToken)?
    }

    private let state = Mutex(State())
    let url: URL?
    private let queue: CallbackQueue
    private let completion: ImageCompletionHandler
    private let onEnd: @Sendable (ImageCombinedOperation) -> Void

    init(
        url: URL?, queue: CallbackQueue, completion: @escaping ImageCompletionHandler,
        onEnd: @escaping @Sendable (ImageCombinedOperation) -> Void
    ) {
        self.url = url
        self.queue = queue
        self.completion = completion
        self.onEnd = onEnd
    }

    var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// Whether the load ended (delivered its outcome or was cancelled).
    var hasEnded: Bool { state.withLock { $0.ended } }

    func cancel() {
        stop(with: .cancelled)
    }

    /// Stops the load as ``cancel()`` does, but ends it with `error` (a load deadline ran out,
    /// SPEC R-2): the cache query and the loader token are cancelled, work still running (a
    /// decode, a transform) is abandoned and its result ignored.
    func stop(with error: WebImageError) {
        let (tokens, deliver) = state.withLock { state -> ((ImageCacheToken?, (any ImageLoaderToken)?), Bool) in
            guard !state.cancelled else { return ((nil, nil), false) }
            state.cancelled = true
            let tokens = (state.cacheToken, state.loaderToken)
            state.cacheToken = nil
            state.loaderToken = nil
            let deliver = !state.ended
            state.ended = true
            return (tokens, deliver)
        }
        tokens.0?.cancel()
        tokens.1?.cancel()
        if deliver {
            let completion = self.completion
            queue.execute { completion(.failure(error)) }
            onEnd(self)
        }
    }

    /// Records the cache query's token; `false` when the load was cancelled meanwhile (the
    /// caller then cancels the token itself).
    func attach(_ token: ImageCacheToken) -> Bool {
        state.withLock { state in
            guard !state.cancelled else { return false }
            state.cacheToken = token
            return true
        }
    }

    /// Records the loader's token; `false` when the load was cancelled meanwhile.
    func attach(_ token: any ImageLoaderToken) -> Bool {
        state.withLock { state in
            guard !state.cancelled else { return false }
            state.loaderToken = token
            return true
        }
    }

    /// Delivers a result without ending the load (a progressive partial image, or the cached
    /// image of a `refreshCached` load). Ignored after the end.
    func deliver(_ result: ImageResult) {
        guard !hasEnded else { return }
        let completion = self.completion
        queue.execute { completion(.success(result)) }
    }

    /// Forwards download progress. Ignored after the end.
    func progress(_ handler: ImageProgressHandler?, received: Int64, expected: Int64?, url: URL) {
        guard let handler, !hasEnded else { return }
        queue.execute { handler(received, expected, url) }
    }

    /// Ends the load with `result`. Ignored after the end.
    func end(_ result: Result<ImageResult, WebImageError>) {
        guard claimEnd() else { return }
        let completion = self.completion
        queue.execute { completion(result) }
        onEnd(self)
    }

    /// Ends the load without another delivery (a 304 after the cached image was shown).
    func endSilently() {
        guard claimEnd() else { return }
        onEnd(self)
    }

    private func claimEnd() -> Bool {
        state.withLock { state in
            guard !state.ended else { return false }
            state.ended = true
            state.cacheToken = nil
            state.loaderToken = nil
            return true
        }
    }
}
