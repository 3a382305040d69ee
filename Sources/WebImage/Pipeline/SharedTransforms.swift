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
/// the prefix. It lives while its transform is queued or running; a later load transforms
/// again (or finds the result in the memory cache). The transform does not start when every
/// load waiting for it was cancelled by the time it gets a pool thread (SPEC M-10).
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
        var operations: [ImageCombinedOperation]
    }

    private struct State {
        var entries: [Key: Entry] = [:]
        var nextID: UInt64 = 0
        /// Every ``run(_:source:cacheKey:operation:pool:)`` step asked for (tests).
        var requested = 0
        /// Steps that joined a transform already in flight (tests).
        var joined = 0
    }

    private let state = Mutex(State())

    /// Transform steps asked for so far, and how many of them joined one in flight.
    var counts: (requested: Int, joined: Int) { state.withLock { ($0.requested, $0.joined) } }

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
            if var entry = state.entries[key] {
                state.joined += 1
                entry.operations.append(operation)
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
                self.remove(key, id: id)
                return result ?? nil
            }
            state.entries[key] = Entry(id: id, source: source, task: task, operations: [operation])
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

    private func remove(_ key: Key, id: UInt64) {
        state.withLock { state in
            if state.entries[key]?.id == id { state.entries[key] = nil }
        }
    }
}
