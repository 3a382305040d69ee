import Synchronization

/// The result-store keys queued and not yet written, so that a key is queued once however many
/// requests meet its result at the same time.
final class QueuedResultKeys: Sendable {
    private let keys = Mutex(Set<ResultStoreKey>())

    /// Marks `key` queued; `false` when it already was.
    func insert(_ key: ResultStoreKey) -> Bool { keys.withLock { $0.insert(key).inserted } }

    /// Marks `key` written (or dropped).
    func remove(_ key: ResultStoreKey) { _ = keys.withLock { $0.remove(key) } }
}
