import Foundation
import Synchronization

/// One load as its caller sees it: a thin handle over the one task that runs the load's async
/// line (``ImageLoad``), keeping the delivery rules (SPEC M-10, M-11).
///
/// Delivery rules, decided under one lock so that every path obeys them:
/// - the load **ends** exactly once: with a result, an error, ``/WebImageCore/WebImageError/cancelled``,
///   or silently (a `refreshCached` 304 after the cached image was delivered);
/// - nothing is delivered after the end;
/// - cancelling ends the load with `cancelled` unless it already ended, and cancels the task
///   (which cancels the cache query) and the loader token (which may be shared with other
///   loads: D-3);
/// - nothing is delivered after ``cancel()`` returns: no progress and no partial image, not even
///   one that was already on its way to the callback queue.
///
/// How: the coordination (cancelled, ended, outcome, task, token, priority, preview slot) is a
/// ``CombinedOperationStateMachine`` in one `Mutex`; this class performs its actions. Whether a
/// progress or partial delivery may go out is decided under ``deliveryLock``, the lock that
/// ending and cancelling take to mark the end, and the delivery checks again, under the same
/// lock, when it runs on the callback queue. With ``CallbackQueue/current`` the callback runs
/// inside the lock, so a `cancel()` from another thread waits for a callback that is already
/// running; the lock is recursive, so a callback may cancel its own load.
final class ImageCombinedOperation: ImageOperation {
    private typealias Machine = CombinedOperationStateMachine<
        Task<Void, Never>, any ImageLoaderToken, CheckedContinuation<Void, Never>
    >

    private let machine = Mutex(Machine())
    /// Serialises the decision "is this load still running?" with the start of a progress or
    /// partial-image callback, and with the end of the load (see the type's notes). Also held
    /// while a priority is forwarded to the loader's token, so concurrent calls reach the token
    /// in the order they were made. Taken before `machine`, never after it; the token's and the
    /// downloader's locks are taken inside it, and they never call back into a load.
    private let deliveryLock = NSRecursiveLock()
    let url: URL?
    private let queue: CallbackQueue
    private let completion: ImageCompletionHandler
    private let onEnd: @Sendable (ImageCombinedOperation) -> Void
    /// Whether the outcome is kept for ``outcome()`` (the async API); a callback load does not
    /// keep its image alive in the handle.
    private let keepsOutcome: Bool

    init(
        url: URL?, queue: CallbackQueue, keepsOutcome: Bool = false, completion: @escaping ImageCompletionHandler,
        onEnd: @escaping @Sendable (ImageCombinedOperation) -> Void
    ) {
        self.url = url
        self.keepsOutcome = keepsOutcome
        self.queue = queue
        self.completion = completion
        self.onEnd = onEnd
    }

    var isCancelled: Bool { machine.withLock { $0.isCancelled } }

    /// Whether the load ended (delivered its outcome or was cancelled).
    var hasEnded: Bool { machine.withLock { $0.hasEnded } }

    func cancel() {
        stop(with: .cancelled)
    }

    /// Stops the load as ``cancel()`` does, but ends it with `error` (a load deadline ran out,
    /// SPEC R-2): the task and the loader token are cancelled, work still running (a decode, a
    /// transform) is abandoned and its result ignored.
    func stop(with error: WebImageError) {
        deliveryLock.lock()
        let (action, waiter) = machine.withLock { ($0.stop(.failure(error)), $0.takeEndWaiter()) }
        deliveryLock.unlock()
        guard case .stop(let task, let loaderToken, let end) = action else { return }
        task?.cancel()
        loaderToken?.cancel()
        if end {
            let completion = self.completion
            queue.execute { completion(.failure(error)) }
            onEnd(self)
        }
        waiter?.resume()
    }

    /// Records the task running the load; `false` when the load was cancelled meanwhile (the
    /// caller then cancels the task itself).
    func attach(_ task: Task<Void, Never>) -> Bool {
        machine.withLock { $0.attachTask(task) }
    }

    /// The load's outcome, once it ended: the last complete result delivered (with
    /// `refreshCached` and a 304, the cached image), or the error it ended with.
    func outcome() async -> Result<ImageResult, WebImageError> {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            if !machine.withLock({ $0.waitForEnd(continuation) }) { continuation.resume() }
        }
        return machine.withLock { $0.outcome } ?? .failure(.cancelled)
    }

    /// Records the loader's token; `false` when the load was cancelled meanwhile. A priority
    /// set before the token existed is applied to it now.
    func attach(_ token: any ImageLoaderToken) -> Bool {
        deliveryLock.lock()
        defer { deliveryLock.unlock() }
        switch machine.withLock({ $0.attachLoaderToken(token) }) {
        case .rejected:
            return false
        case .attached(let priority):
            if let priority { token.setPriority(priority) }
            return true
        }
    }

    /// The priority set through ``setPriority(_:)``, or `nil` (the options' and context's).
    var priorityOverride: DownloadPriority? { machine.withLock { $0.priority } }

    func setPriority(_ priority: DownloadPriority) {
        deliveryLock.lock()
        defer { deliveryLock.unlock() }
        let token = machine.withLock { $0.setPriority(priority) }
        token?.setPriority(priority)
    }

    /// Delivers a result without ending the load (a progressive partial image, or the cached
    /// image of a `refreshCached` load). Ignored after the end; dropped when the load is
    /// cancelled before it runs.
    func deliver(_ result: ImageResult) {
        if keepsOutcome, result.isFinal { machine.withLock { $0.outcome = .success(result) } }
        let completion = self.completion
        dispatchWhileRunning { completion(.success(result)) }
    }

    /// Claims the one preview-transform slot: `false` when a preview is already being
    /// transformed (this one is dropped rather than queued behind it, as Nuke does) or the
    /// final result has closed previews.
    func beginPreview() -> Bool {
        machine.withLock { $0.beginPreview() }
    }

    /// Releases the slot taken by ``beginPreview()``; wakes the final path waiting for it.
    func endPreview() {
        machine.withLock { $0.endPreview() }?.resume()
    }

    /// Closes previews and waits until a preview being transformed has been delivered or
    /// dropped, so no preview follows the final result.
    func closePreviews() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            if !machine.withLock({ $0.closePreviews(continuation) }) { continuation.resume() }
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
        guard let waiter = claimEnd(keepsOutcome ? result : nil) else { return }
        let completion = self.completion
        queue.execute { completion(result) }
        onEnd(self)
        waiter?.resume()
    }

    /// Ends the load without another delivery (a 304 after the cached image was shown).
    func endSilently() {
        guard let waiter = claimEnd(nil) else { return }
        onEnd(self)
        waiter?.resume()
    }

    /// Claims the end, recording `outcome`: `nil` when the load already ended, else the waiter
    /// of ``outcome()`` to wake (itself optional).
    private func claimEnd(_ outcome: Result<ImageResult, WebImageError>?) -> CheckedContinuation<Void, Never>?? {
        deliveryLock.lock()
        defer { deliveryLock.unlock() }
        return machine.withLock { machine in
            guard machine.end(outcome) else { return nil }
            return .some(machine.takeEndWaiter())
        }
    }
}
