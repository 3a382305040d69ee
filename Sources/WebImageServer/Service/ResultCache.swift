import Foundation
import Synchronization

/// A rendered response body and what describes it.
struct RenderedResult: Sendable {
    var body: Data
    var format: OutputFormat
}

/// An in-memory LRU of rendered results bounded by their total bytes (SPEC V-8).
final class ResultCache: Sendable {
    private struct State {
        var entries: [String: (value: RenderedResult, tick: UInt64)] = [:]
        var bytes = 0
        var tick: UInt64 = 0
    }
    private let state = Mutex(State())
    /// The byte bound.
    let capacity: Int

    init(capacity: Int) { self.capacity = max(0, capacity) }

    func value(for key: String) -> RenderedResult? {
        state.withLock { state in
            guard let entry = state.entries[key] else { return nil }
            state.tick += 1
            state.entries[key] = (entry.value, state.tick)
            return entry.value
        }
    }

    func insert(_ value: RenderedResult, for key: String) {
        guard value.body.count <= capacity else { return }
        state.withLock { state in
            if let old = state.entries.removeValue(forKey: key) { state.bytes -= old.value.body.count }
            state.tick += 1
            state.entries[key] = (value, state.tick)
            state.bytes += value.body.count
            while state.bytes > capacity, let oldest = state.entries.min(by: { $0.value.tick < $1.value.tick }) {
                state.entries[oldest.key] = nil
                state.bytes -= oldest.value.value.body.count
            }
        }
    }

    var totalBytes: Int { state.withLock { $0.bytes } }
}
