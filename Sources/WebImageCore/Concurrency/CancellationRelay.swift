import Synchronization

/// Hands a handle (a download token, a cache query's token) to a task's cancellation handler,
/// which may run before the handle exists: a ``cancel()`` that comes before ``set(_:)`` cancels
/// the handle as soon as it is set, and one that comes after cancels it at once.
///
/// The handle and the cancelled flag live in one `Mutex`; the handle's own cancel runs outside
/// it, so a handle that calls back into its owner cannot deadlock.
package final class CancellationRelay<Handle: Sendable>: Sendable {
    private let state = Mutex<(handle: Handle?, cancelled: Bool)>((nil, false))
    private let cancelHandle: @Sendable (Handle) -> Void

    /// A relay that cancels a handle with `cancel`.
    package init(cancel: @escaping @Sendable (Handle) -> Void) {
        cancelHandle = cancel
    }

    /// Keeps `handle`; cancels it at once when ``cancel()`` came first.
    package func set(_ handle: Handle) {
        let cancelNow = state.withLock { state in
            state.handle = handle
            return state.cancelled
        }
        if cancelNow { cancelHandle(handle) }
    }

    /// Cancels the handle, now when it is set, else when it is.
    package func cancel() {
        let handle = state.withLock { state in
            state.cancelled = true
            return state.handle
        }
        if let handle { cancelHandle(handle) }
    }
}
