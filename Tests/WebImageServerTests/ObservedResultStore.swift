import Foundation
import Synchronization
import WebImageServer

/// A ``ResultStore`` wrapper that reports every finished write and records every key looked up
/// and written, so tests wait for events instead of time.
final class ObservedResultStore: ResultStore {
    let inner: any ResultStore
    private let state = Mutex<(lookups: [ResultStoreKey], writes: [ResultStoreKey])>(([], []))
    let writes: AsyncStream<ResultStoreKey>
    private let continuation: AsyncStream<ResultStoreKey>.Continuation

    init(_ inner: any ResultStore) {
        self.inner = inner
        (writes, continuation) = AsyncStream.makeStream(of: ResultStoreKey.self)
    }

    var lookedUp: [ResultStoreKey] { state.withLock { $0.lookups } }
    var written: [ResultStoreKey] { state.withLock { $0.writes } }

    func entry(for key: ResultStoreKey) async throws -> StoredResult? {
        state.withLock { $0.lookups.append(key) }
        return try await inner.entry(for: key)
    }

    func store(_ result: StoredResult, for key: ResultStoreKey) async throws {
        defer {
            state.withLock { $0.writes.append(key) }
            continuation.yield(key)
        }
        try await inner.store(result, for: key)
    }

    /// The next finished write's key (the test's time limit guards a write that never comes).
    func nextWrite() async -> ResultStoreKey? {
        for await key in writes { return key }
        return nil
    }
}
