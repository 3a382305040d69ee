import Synchronization
import WebImageCore

/// The transforms in flight in one ``ImageManager``, shared between its loads (as Nuke's shared
/// processing).
///
/// Loads coalesced onto one download get the same decoded image (SPEC D-3); when they also ask
/// for the same transformer, the transform runs once and they all get its result. A
/// ``/WebImageCore/PipelineTransformer`` runs member by member, each prefix shared on its own: a
/// load with `[A]` and one with `[A, B]` run `A` once, and `B` on its result.
///
/// An entry is identified by the source image (the very instance: only loads that got the same
/// decoded image share), the cache key passed to the transformer, and the transformer key of
/// the prefix. It lives while its transform is queued or running and, once it finished, until
/// every load that asked for it has ended (``release(_:)``, after the load stored its result):
/// a load that gets the same decoded image meanwhile — a caller that joined the download while
/// its body was being delivered — takes the result instead of transforming again. A load
/// arriving after that transforms again (or finds the result in the memory cache). The
/// transform does not start when every load waiting for it was cancelled by the time it gets a
/// pool thread (SPEC M-10).
final class SharedTransforms: Sendable {
    struct Key: Hashable, Sendable {
        let source: ObjectIdentifier
        let cacheKey: String
        let transformerKey: String
    }

    private struct Entry {
        let id: UInt64
        /// Kept so that the source's identity (part of the key) cannot be reused meanwhile.
        let source: Image
        let task: Task<Image?, Never>
        /// The loads that asked for this transform and have not ended yet.
        var operations: [ImageCombinedOperation]
        /// Whether the transform has finished (its result is in `task`).
        var finished = false
    }

    private struct State {
        var entries: [Key: Entry] = [:]
        /// The entries each load holds, by the load's identity (for ``release(_:)``).
        var held: [ObjectIdentifier: [Key]] = [:]
        var nextID: UInt64 = 0
        /// Every ``run(_:source:cacheKey:operation:pool:)`` step asked for (tests).
        var requested = 0
        /// Steps that joined a transform already in flight (tests).
        var joined = 0
    }

    private let state = Mutex(State())

    /// Transform steps asked for so far, and how many of them joined one in flight.
    var counts: (requested: Int, joined: Int) { state.withLock { ($0.requested, $0.joined) } }

    /// Entries kept (running, or finished and held by a load that has not ended).
    var entryCount: Int { state.withLock { $0.entries.count } }

    /// `transformer` applied to `source` for `operation`, shared with every other load asking
    /// for the same (source, cache key, transformer prefix) meanwhile; `nil` when a step fails
    /// (or did not run because every load waiting for it was cancelled).
    func run(
        _ transformer: any ImageTransformer, source: Image, cacheKey: String, operation: ImageCombinedOperation,
        pool: ProcessingPool
    ) async -> Image? {
        let steps = (transformer as? PipelineTransformer)?.transformers ?? [transformer]
        var current = source
        var prefix: [String] = []
        for step in steps {
            prefix.append(step.transformerKey)
            let key = Key(source: ObjectIdentifier(source), cacheKey: cacheKey, transformerKey: prefix.joined(separator: "-"))
            let input = current
            let task = task(for: key, source: source, operation: operation, pool: pool) { step.transform(input, key: cacheKey) }
            guard let next = await task.value else { return nil }
            current = next
        }
        return current
    }

    /// The task of `key`'s entry, joined or created.
    private func task(
        for key: Key, source: Image, operation: ImageCombinedOperation, pool: ProcessingPool,
        _ work: @escaping @Sendable () -> Image?
    ) -> Task<Image?, Never> {
        state.withLock { state in
            state.requested += 1
            // A load that already ended (cancelled meanwhile) holds nothing: its release has
            // run or is about to, and must not leave it behind.
            let holds = !operation.hasEnded
            if holds { state.held[ObjectIdentifier(operation), default: []].append(key) }
            if var entry = state.entries[key] {
                state.joined += 1
                if holds { entry.operations.append(operation) }
                state.entries[key] = entry
                return entry.task
            }
            let id = state.nextID
            state.nextID &+= 1
            let task = Task<Image?, Never> {
                let result = try? await pool.run { () -> Image? in
                    guard self.shouldStart(key, id: id) else { return nil }
                    return work()
                }
                self.finish(key, id: id)
                return result ?? nil
            }
            state.entries[key] = Entry(id: id, source: source, task: task, operations: holds ? [operation] : [])
            return task
        }
    }

    /// On the pool thread, before the work: whether any load still waits for it. When none
    /// does, the entry goes at once (under the same lock), so a load arriving later starts a
    /// transform of its own instead of joining one that will not run.
    private func shouldStart(_ key: Key, id: UInt64) -> Bool {
        state.withLock { state in
            guard let entry = state.entries[key], entry.id == id else { return false }
            if entry.operations.allSatisfy(\.isCancelled) {
                state.entries[key] = nil
                return false
            }
            return true
        }
    }

    /// The transform of `key`'s entry finished: the entry stays while a load that asked for it
    /// has not ended, so loads getting the same image meanwhile reuse the result.
    private func finish(_ key: Key, id: UInt64) {
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
