import Synchronization
import WebImageServer

/// A ``ResultStore`` in memory.
final class MemoryResultStore: ResultStore {
    private let entries = Mutex<[ResultStoreKey: StoredResult]>([:])

    func entry(for key: ResultStoreKey) async throws -> StoredResult? { entries.withLock { $0[key] } }

    func store(_ result: StoredResult, for key: ResultStoreKey) async throws { entries.withLock { $0[key] = result } }
}
