/// The coordination of one ``ImageCombinedOperation`` as a pure value: whether the load was
/// cancelled or ended, its outcome, the task and the loader token it must cancel, the priority
/// asked for, the preview-transform slot, and who waits for the end. No I/O, no locks, no callbacks: the owner keeps it in a `Mutex`,
/// calls one mutating method per event, and performs the returned action after leaving the
/// lock (cancelling tokens, forwarding a priority, waking the final path).
///
/// Lifecycle: running → ended (a result, an error, or silently) — and, independently,
/// cancelled (``stop()``), which also ends a running load. The task and the token are held
/// while running and handed back when the load stops or dropped when it ends.
///
/// Previews (progressive partial images that go through the transformer): at most one is
/// transformed at a time; newer ones are dropped while it runs. ``closePreviews(_:)`` closes
/// the slot for good, and the final path waits for a preview still being transformed.
///
/// `LoadTask` (the task running the load's async line), `LoaderToken` and `Waiter` are the
/// owner's payloads; tests use plain values.
struct CombinedOperationStateMachine<LoadTask, LoaderToken, Waiter> {
    private(set) var isCancelled = false
    private(set) var hasEnded = false
    /// The last complete result delivered, or the error the load ended with (what an awaiting
    /// caller gets).
    var outcome: Result<ImageResult, WebImageError>?
    private var task: LoadTask?
    private var endWaiter: Waiter?
    private var loaderToken: LoaderToken?
    /// The priority set through ``setPriority(_:)``, if any.
    private(set) var priority: DownloadPriority?
    private var previewBusy = false
    private var previewsClosed = false
    private var previewWaiter: Waiter?

    /// The result of ``stop()``.
    enum StopAction {
        /// Already cancelled: nothing to do.
        case none
        /// Cancel the task and the token; `end` tells whether the load was still running, so
        /// the owner delivers the stop's error and reports the end.
        case stop(task: LoadTask?, loaderToken: LoaderToken?, end: Bool)
    }

    /// The result of ``attachLoaderToken(_:)``.
    enum AttachAction {
        /// The load was cancelled: the owner cancels the token.
        case rejected
        /// The token is held; a priority set before it existed is applied to it now.
        case attached(priority: DownloadPriority?)
    }

    /// Cancels the load (or ends it with a deadline's error, `outcome`): marks it cancelled and,
    /// when it was running, ended; hands back the task and the token to cancel.
    mutating func stop(_ outcome: Result<ImageResult, WebImageError>? = nil) -> StopAction {
        guard !isCancelled else { return .none }
        isCancelled = true
        let held = (task, loaderToken)
        task = nil
        loaderToken = nil
        let end = !hasEnded
        hasEnded = true
        if end, let outcome { self.outcome = outcome }
        return .stop(task: held.0, loaderToken: held.1, end: end)
    }

    /// Records the task running the load; `false` when the load was cancelled (the owner then
    /// cancels the task).
    mutating func attachTask(_ task: LoadTask) -> Bool {
        guard !isCancelled else { return false }
        self.task = task
        return true
    }

    /// Records the loader's token.
    mutating func attachLoaderToken(_ token: LoaderToken) -> AttachAction {
        guard !isCancelled else { return .rejected }
        loaderToken = token
        return .attached(priority: priority)
    }

    /// Records `priority`; returns the loader token to forward it to, if there is one yet.
    mutating func setPriority(_ priority: DownloadPriority) -> LoaderToken? {
        self.priority = priority
        return loaderToken
    }

    /// Claims the end: `true` for the first end (the owner delivers the outcome), `false` once
    /// the load ended or was cancelled. The tokens are dropped (nothing left to cancel).
    mutating func end(_ outcome: Result<ImageResult, WebImageError>? = nil) -> Bool {
        guard !hasEnded else { return false }
        hasEnded = true
        if let outcome { self.outcome = outcome }
        task = nil
        loaderToken = nil
        return true
    }

    /// Waits for the end: `true` keeps `waiter` until the end hands it back
    /// (``takeEndWaiter()``); `false` when the load already ended (the owner goes on at once).
    mutating func waitForEnd(_ waiter: Waiter) -> Bool {
        guard !hasEnded else { return false }
        endWaiter = waiter
        return true
    }

    /// After an end or a stop: the waiter to wake, if one waits.
    mutating func takeEndWaiter() -> Waiter? {
        guard hasEnded else { return nil }
        defer { endWaiter = nil }
        return endWaiter
    }

    /// Claims the one preview-transform slot: `false` when a preview is already being
    /// transformed (this one is dropped rather than queued behind it) or previews are closed.
    mutating func beginPreview() -> Bool {
        guard !previewBusy, !previewsClosed else { return false }
        previewBusy = true
        return true
    }

    /// Releases the slot taken by ``beginPreview()``; returns the final path's waiter to wake.
    mutating func endPreview() -> Waiter? {
        previewBusy = false
        defer { previewWaiter = nil }
        return previewWaiter
    }

    /// Closes previews. `true`: a preview is being transformed and `waiter` is kept until
    /// ``endPreview()`` hands it back; `false`: the owner goes on at once.
    mutating func closePreviews(_ waiter: Waiter) -> Bool {
        previewsClosed = true
        guard previewBusy else { return false }
        previewWaiter = waiter
        return true
    }
}
