import Synchronization
import WebImageServer

/// A ``ResultStore`` whose calls wait at gates the test opens: `store` until ``openWrites()``,
/// `entry` (when `holdLookups`) until ``openLookups()``. Starts are reported as events.
final class GatedResultStore: ResultStore {
    private struct State {
        var writesOpen = false
        var lookupsOpen = false
        var waitingWrites: [CheckedContinuation<Void, Never>] = []
        var waitingLookups: [CheckedContinuation<Void, Never>] = []
        var finishedWrites = 0
    }
    private let state = Mutex(State())
    private let holdLookups: Bool
    let writeStarts: AsyncStream<Void>
    private let startContinuation: AsyncStream<Void>.Continuation

    init(holdLookups: Bool = false) {
        self.holdLookups = holdLookups
        (writeStarts, startContinuation) = AsyncStream.makeStream(of: Void.self)
    }

    var finishedWrites: Int { state.withLock { $0.finishedWrites } }

    func entry(for key: ResultStoreKey) async throws -> StoredResult? {
        guard holdLookups else { return nil }
        await withCheckedContinuation { continuation in
            let open = state.withLock { state in
                if !state.lookupsOpen { state.waitingLookups.append(continuation) }
                return state.lookupsOpen
            }
            if open { continuation.resume() }
        }
        return nil
    }

    func store(_ result: StoredResult, for key: ResultStoreKey) async throws {
        startContinuation.yield()
        await withCheckedContinuation { continuation in
            let open = state.withLock { state in
                if !state.writesOpen { state.waitingWrites.append(continuation) }
                return state.writesOpen
            }
            if open { continuation.resume() }
        }
        state.withLock { $0.finishedWrites += 1 }
    }

    func openWrites() {
        let waiting = state.withLock { state in
            state.writesOpen = true
            defer { state.waitingWrites = [] }
            return state.waitingWrites
        }
        for continuation in waiting { continuation.resume() }
    }

    func openLookups() {
        let waiting = state.withLock { state in
            state.lookupsOpen = true
            defer { state.waitingLookups = [] }
            return state.waitingLookups
        }
        for continuation in waiting { continuation.resume() }
    }

    /// Waits for the next write to start.
    func nextWriteStart() async {
        for await _ in writeStarts { return }
    }
}
