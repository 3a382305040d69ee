import Foundation

/// The prefetcher's bookkeeping as a pure state machine (SPEC P-1, P-2): batches, a shared
/// concurrency limit, per-batch counts. Mutating methods return the actions the owner performs
/// after leaving its lock; nothing here does I/O, so it is unit-tested on its own.
struct PrefetchScheduler {
    /// Something the owner must do.
    enum Action: Equatable {
        /// Start loading `url` (item `index` of `batch`).
        case start(batch: Int, index: Int, url: URL)
        /// Cancel the running load of item `index` of `batch`.
        case cancel(batch: Int, index: Int)
        /// Report progress of `batch`.
        case progress(batch: Int, finished: Int, total: Int)
        /// Report the end of `batch`.
        case complete(batch: Int, finished: Int, skipped: Int)
    }

    private struct Batch {
        var urls: [URL]
        var nextIndex = 0
        var running: Set<Int> = []
        var finished = 0
        var skipped = 0
        var cancelled = false
        var done: Int { finished + skipped }
    }

    /// At most this many loads run at once, across all batches.
    var maxConcurrent: Int
    private var batches: [Int: Batch] = [:]
    private var order: [Int] = []
    private var running = 0
    private var nextBatchID = 0

    init(maxConcurrent: Int) {
        self.maxConcurrent = max(1, maxConcurrent)
    }

    /// Number of loads running now.
    var runningCount: Int { running }
    /// Batches not yet completed.
    var activeBatchCount: Int { batches.count }

    /// Whether item `index` of `batch` is running.
    func isRunning(batch id: Int, index: Int) -> Bool {
        batches[id]?.running.contains(index) ?? false
    }

    /// Whether `batch` was cancelled (and has not completed yet).
    func isCancelled(batch id: Int) -> Bool {
        batches[id]?.cancelled ?? false
    }

    /// Adds a batch; returns its id and the actions to perform.
    mutating func add(_ urls: [URL]) -> (batch: Int, actions: [Action]) {
        let id = nextBatchID
        nextBatchID += 1
        if urls.isEmpty {
            return (id, [.complete(batch: id, finished: 0, skipped: 0)])
        }
        batches[id] = Batch(urls: urls)
        order.append(id)
        return (id, fill())
    }

    /// Item `index` of `batch` ended: `succeeded` counts it finished, otherwise skipped.
    mutating func itemEnded(batch id: Int, index: Int, succeeded: Bool) -> [Action] {
        guard var batch = batches[id], batch.running.remove(index) != nil else { return [] }
        running -= 1
        if succeeded { batch.finished += 1 } else { batch.skipped += 1 }
        batches[id] = batch
        var actions: [Action] = []
        if !batch.cancelled {
            actions.append(.progress(batch: id, finished: batch.done, total: batch.urls.count))
        }
        actions += completeIfDone(id)
        return actions + fill()
    }

    /// Cancels `batch`: queued items are skipped, running ones are cancelled (they end through
    /// ``itemEnded(batch:index:succeeded:)``).
    mutating func cancel(batch id: Int) -> [Action] {
        guard var batch = batches[id], !batch.cancelled else { return [] }
        batch.cancelled = true
        batch.skipped += batch.urls.count - batch.nextIndex
        batch.nextIndex = batch.urls.count
        batches[id] = batch
        let cancels = batch.running.sorted().map { Action.cancel(batch: id, index: $0) }
        return cancels + completeIfDone(id) + fill()
    }

    /// Cancels every batch.
    mutating func cancelAll() -> [Action] {
        order.flatMap { cancel(batch: $0) }
    }

    private mutating func completeIfDone(_ id: Int) -> [Action] {
        guard let batch = batches[id], batch.nextIndex == batch.urls.count, batch.running.isEmpty else { return [] }
        batches[id] = nil
        order.removeAll { $0 == id }
        return [.complete(batch: id, finished: batch.finished, skipped: batch.skipped)]
    }

    /// Starts queued items, oldest batch first, while slots are free.
    private mutating func fill() -> [Action] {
        var actions: [Action] = []
        for id in order where running < maxConcurrent {
            guard var batch = batches[id] else { continue }
            while running < maxConcurrent && batch.nextIndex < batch.urls.count {
                let index = batch.nextIndex
                batch.nextIndex += 1
                batch.running.insert(index)
                running += 1
                actions.append(.start(batch: id, index: index, url: batch.urls[index]))
            }
            batches[id] = batch
        }
        return actions
    }
}
