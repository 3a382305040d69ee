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

    /// A transform in flight: its task, and its source kept so that the source's identity
    /// (part of the key) cannot be reused meanwhile.
    struct Running: Sendable {
        let source: Image
        let task: Task<Image?, Never>
    }

    private let work = SharedWork<Key, Running>()

    /// Transform steps asked for so far, and how many of them joined one in flight.
    var counts: (requested: Int, joined: Int) { work.counts }

    /// Entries kept (running, or finished and held by a load that has not ended).
    var entryCount: Int { work.entryCount }

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
        _ workItem: @escaping @Sendable () -> Image?
    ) -> Task<Image?, Never> {
        let work = work
        return work.joinOrStart(key, operation: operation) { id in
            let task = Task<Image?, Never> {
                let result = try? await pool.run { () -> Image? in
                    guard work.shouldStart(key, id: id) else { return nil }
                    return workItem()
                }
                work.finish(key, id: id)
                return result ?? nil
            }
            return Running(source: source, task: task)
        }.task
    }

    /// `operation` ended (its result stored, or it failed or was cancelled): it no longer holds
    /// the transforms it asked for; a finished one no load holds goes.
    func release(_ operation: ImageCombinedOperation) { work.release(operation) }
}
