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

/// A ``ResultStore`` in memory.
final class MemoryResultStore: ResultStore {
    private let entries = Mutex<[ResultStoreKey: StoredResult]>([:])

    func entry(for key: ResultStoreKey) async throws -> StoredResult? { entries.withLock { $0[key] } }

    func store(_ result: StoredResult, for key: ResultStoreKey) async throws { entries.withLock { $0[key] = result } }
}

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

extension ServiceHarness {
    /// The value of the metric line `name` (with its labels, if any) on `/metrics`, or `nil`.
    func metric(_ name: String) async throws -> Double? {
        let text = try await get("/metrics").text
        for line in text.split(separator: "\n") where line.hasPrefix(name + " ") {
            return Double(line.dropFirst(name.count + 1))
        }
        return nil
    }

    /// Waits until metric `name` reaches `value` (the test's time limit guards a value never reached).
    func waitForMetric(_ name: String, atLeast value: Double) async throws {
        while (try await metric(name) ?? 0) < value {
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}

/// A fresh, empty directory under the temporary directory.
func temporaryStoreDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-result-store-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}
