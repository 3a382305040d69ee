/// The coordination of one ``ImageCombinedOperation`` as a pure value: whether the load was
/// cancelled or ended, the tokens of the work it must cancel, the priority asked for, and the
/// preview-transform slot. No I/O, no locks, no callbacks: the owner keeps it in a `Mutex`,
/// calls one mutating method per event, and performs the returned action after leaving the
/// lock (cancelling tokens, forwarding a priority, waking the final path).
///
/// Lifecycle: running → ended (a result, an error, or silently) — and, independently,
/// cancelled (``stop()``), which also ends a running load. Tokens are held while running and
/// handed back when the load stops or dropped when it ends.
///
/// Previews (progressive partial images that go through the transformer): at most one is
/// transformed at a time; newer ones are dropped while it runs. ``closePreviews(_:)`` closes
/// the slot for good, and the final path waits for a preview still being transformed.
///
/// `CacheToken`, `LoaderToken` and `Waiter` are the owner's payloads; tests use plain values.
struct CombinedOperationStateMachine<CacheToken, LoaderToken, Waiter> {
    private(set) var isCancelled = false
    private(set) var hasEnded = false
    private var cacheToken: CacheToken?
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
        /// Cancel these tokens; `end` tells whether the load was still running, so the owner
        /// delivers the stop's error and reports the end.
        case stop(cacheToken: CacheToken?, loaderToken: LoaderToken?, end: Bool)
    }

    /// The result of ``attachLoaderToken(_:)``.
    enum AttachAction {
        /// The load was cancelled: the owner cancels the token.
        case rejected
        /// The token is held; a priority set before it existed is applied to it now.
        case attached(priority: DownloadPriority?)
    }

    /// Cancels the load (or ends it with a deadline's error): marks it cancelled and, when it
    /// was running, ended; hands back the tokens to cancel.
    mutating func stop() -> StopAction {
        guard !isCancelled else { return .none }
        isCancelled = true
        let tokens = (cacheToken, loaderToken)
        cacheToken = nil
        loaderToken = nil
        let end = !hasEnded
        hasEnded = true
        return .stop(cacheToken: tokens.0, loaderToken: tokens.1, end: end)
    }

    /// Records the cache query's token; `false` when the load was cancelled (the owner then
    /// cancels the token).
    mutating func attachCacheToken(_ token: CacheToken) -> Bool {
        guard !isCancelled else { return false }
        cacheToken = token
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
    mutating func end() -> Bool {
        guard !hasEnded else { return false }
        hasEnded = true
        cacheToken = nil
        loaderToken = nil
        return true
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
