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
///   query and the loader token;
/// - nothing is delivered after ``cancel()`` returns: no progress and no partial image, not even
///   one that was already on its way to the callback queue.
///
/// How: whether a progress or partial delivery may go out is decided under ``deliveryLock``,
/// the lock that ending and cancelling take to mark the end, and the delivery checks again,
/// under the same lock, when it runs on the callback queue. With ``CallbackQueue/current`` the
/// callback runs inside the lock, so a `cancel()` from another thread waits for a callback that
/// is already running; the lock is recursive, so a callback may cancel its own load.
final class ImageCombinedOperation: ImageOperation {
    private struct State {
        var cancelled = false
        var ended = false
        var cacheToken: ImageCacheToken?
        var loaderToken: (any ImageLoaderToken)?
    }

    private let state = Mutex(State())
    /// Serialises the decision "is this load still running?" with the start of a progress or
    /// partial-image callback, and with the end of the load (see the type's notes). Taken
    /// before `state`, never after it.
    private let deliveryLock = NSRecursiveLock()
    /// Transformed previews (SPEC D-8, M-9): whether one is being transformed, whether the
    /// final result has closed previews, and the final path waiting for the running one.
    private let previews = Mutex<(busy: Bool, closed: Bool, waiter: CheckedContinuation<Void, Never>?)>((false, false, nil))
    /// The priority set through ``setPriority(_:)``, if any. Held while it is forwarded to the
    /// loader's token, so concurrent calls reach the token in the order they were made
    /// (lock order: this, then the token's and the downloader's locks; never the reverse).
    private let requestedPriority = Mutex<DownloadPriority?>(nil)
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
        deliveryLock.lock()
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
        deliveryLock.unlock()
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

    /// Records the loader's token; `false` when the load was cancelled meanwhile. A priority
    /// set before the token existed is applied to it now.
    func attach(_ token: any ImageLoaderToken) -> Bool {
        let attached = state.withLock { state in
            guard !state.cancelled else { return false }
            state.loaderToken = token
            return true
        }
        if attached {
            requestedPriority.withLock { requested in
                if let requested { token.setPriority(requested) }
            }
        }
        return attached
    }

    /// The priority set through ``setPriority(_:)``, or `nil` (the options' and context's).
    var priorityOverride: DownloadPriority? { requestedPriority.withLock { $0 } }

    func setPriority(_ priority: DownloadPriority) {
        requestedPriority.withLock { requested in
            requested = priority
            let token = state.withLock { $0.loaderToken }
            token?.setPriority(priority)
        }
    }

    /// Delivers a result without ending the load (a progressive partial image, or the cached
    /// image of a `refreshCached` load). Ignored after the end; dropped when the load is
    /// cancelled before it runs.
    func deliver(_ result: ImageResult) {
        let completion = self.completion
        dispatchWhileRunning { completion(.success(result)) }
    }

    /// Claims the one preview-transform slot: `false` when a preview is already being
    /// transformed (this one is dropped rather than queued behind it, as Nuke does) or the
    /// final result has closed previews.
    func beginPreview() -> Bool {
        previews.withLock { state in
            guard !state.busy, !state.closed else { return false }
            state.busy = true
            return true
        }
    }

    /// Releases the slot taken by ``beginPreview()``; wakes the final path waiting for it.
    func endPreview() {
        let waiter = previews.withLock { state -> CheckedContinuation<Void, Never>? in
            state.busy = false
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    /// Closes previews and waits until a preview being transformed has been delivered or
    /// dropped, so no preview follows the final result.
    func closePreviews() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let waitForPreview = previews.withLock { state -> Bool in
                state.closed = true
                guard state.busy else { return false }
                state.waiter = continuation
                return true
            }
            if !waitForPreview { continuation.resume() }
        }
    }

    /// Forwards download progress. Ignored after the end; dropped when the load is cancelled
    /// before it runs.
    func progress(_ handler: ImageProgressHandler?, received: Int64, expected: Int64?, url: URL) {
        guard let handler else { return }
        dispatchWhileRunning { handler(received, expected, url) }
    }

    /// Queues `work` unless the load ended; when it runs, runs it unless the load was cancelled
    /// meanwhile. Both checks hold ``deliveryLock``, so no `work` starts after ``cancel()``
    /// marked the end. (A normal end does not drop work queued before it: on a serial queue it
    /// runs before the final result, in order.)
    private func dispatchWhileRunning(_ work: @escaping @Sendable () -> Void) {
        deliveryLock.lock()
        defer { deliveryLock.unlock() }
        guard !hasEnded else { return }
        queue.execute { [self] in
            deliveryLock.lock()
            defer { deliveryLock.unlock() }
            guard !isCancelled else { return }
            work()
        }
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
        deliveryLock.lock()
        defer { deliveryLock.unlock() }
        return state.withLock { state in
            guard !state.ended else { return false }
            state.ended = true
            state.cacheToken = nil
            state.loaderToken = nil
            return true
        }
    }
}
