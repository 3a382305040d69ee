import Synchronization

/// The bookkeeping of work shared between the loads of one ``ImageManager``: the table behind
/// ``SharedDecodes`` and ``SharedTransforms``.
///
/// An entry is made by the first load asking for its key and joined by the loads asking while it
/// is kept. It is kept while its work is queued or running and, once that finished
/// (``finish(_:id:)``), until every load that asked for it has ended (``release(_:)``). Work
/// whose loads were all cancelled by the time it gets a thread does not start
/// (``shouldStart(_:id:)``, SPEC M-10), and its entry goes at once, so a load arriving later
/// starts work of its own instead of joining work that will not run. `Value` is what a joining
/// load gets: the work's task and what must live as long as it.
final class SharedWork<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private struct Entry {
        let id: UInt64
        let value: Value
        /// The loads that asked for this work and have not ended yet.
        var operations: [ImageCombinedOperation]
        /// Whether the work has finished (its result is in `value`'s task).
        var finished = false
    }

    private struct State {
        var entries: [Key: Entry] = [:]
        /// The entries each load holds, by the load's identity (for ``release(_:)``).
        var held: [ObjectIdentifier: [Key]] = [:]
        var nextID: UInt64 = 0
        /// Every piece of work asked for (tests).
        var requested = 0
        /// Requests that joined work already in flight (tests).
        var joined = 0
    }

    private let state = Mutex(State())

    /// Work asked for so far, and how much of it joined work in flight.
    var counts: (requested: Int, joined: Int) { state.withLock { ($0.requested, $0.joined) } }

    /// Entries kept (running, or finished and held by a load that has not ended).
    var entryCount: Int { state.withLock { $0.entries.count } }

    /// The value of `key`'s entry for `operation`: joined when one is kept, else made by
    /// `start` (called under the table's lock with the new entry's id, which the work passes to
    /// ``shouldStart(_:id:)`` and ``finish(_:id:)``).
    func joinOrStart(_ key: Key, operation: ImageCombinedOperation, start: (_ id: UInt64) -> Value) -> Value {
        state.withLock { state in
            state.requested += 1
            if let value = Self.join(key, operation, &state) { return value }
            let id = state.nextID
            state.nextID &+= 1
            let value = start(id)
            Self.hold(key, operation, &state)
            state.entries[key] = Entry(id: id, value: value, operations: operation.hasEnded ? [] : [operation])
            return value
        }
    }

    /// The value of `key`'s entry joined by `operation`, or `nil` when none is kept (not
    /// counted as asked for).
    func join(_ key: Key, operation: ImageCombinedOperation) -> Value? {
        state.withLock { state in
            guard state.entries[key] != nil else { return nil }
            state.requested += 1
            return Self.join(key, operation, &state)
        }
    }

    private static func join(_ key: Key, _ operation: ImageCombinedOperation, _ state: inout State) -> Value? {
        guard var entry = state.entries[key] else { return nil }
        state.joined += 1
        if !operation.hasEnded { entry.operations.append(operation) }
        hold(key, operation, &state)
        state.entries[key] = entry
        return entry.value
    }

    /// Notes that `operation` holds `key`'s entry. A load that already ended (cancelled
    /// meanwhile) holds nothing: its release has run or is about to, and must not leave it
    /// behind.
    private static func hold(_ key: Key, _ operation: ImageCombinedOperation, _ state: inout State) {
        guard !operation.hasEnded else { return }
        state.held[ObjectIdentifier(operation), default: []].append(key)
    }

    /// On the work's thread, before the work: whether any load still waits for it. When none
    /// does, the entry goes at once (under the same lock).
    func shouldStart(_ key: Key, id: UInt64) -> Bool {
        state.withLock { state in
            guard let entry = state.entries[key], entry.id == id else { return false }
            if entry.operations.allSatisfy(\.isCancelled) {
                state.entries[key] = nil
                return false
            }
            return true
        }
    }

    /// The work of `key`'s entry `id` finished: the entry stays while a load that asked for it
    /// has not ended, so loads asking meanwhile reuse the result.
    func finish(_ key: Key, id: UInt64) {
        state.withLock { state in
            guard var entry = state.entries[key], entry.id == id else { return }
            if entry.operations.isEmpty {
                state.entries[key] = nil
            } else {
                entry.finished = true
                state.entries[key] = entry
            }
        }
    }

    /// `operation` ended (its result stored, or it failed or was cancelled): it no longer holds
    /// the entries it asked for; a finished entry no load holds goes.
    func release(_ operation: ImageCombinedOperation) {
        state.withLock { state in
            guard let keys = state.held.removeValue(forKey: ObjectIdentifier(operation)) else { return }
            for key in keys {
                guard var entry = state.entries[key] else { continue }
                entry.operations.removeAll { $0 === operation }
                if entry.finished && entry.operations.isEmpty {
                    state.entries[key] = nil
                } else {
                    state.entries[key] = entry
                }
            }
        }
    }
}
