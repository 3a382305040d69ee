import Foundation
import Logging

/// The request line's result-store step (SPEC V-12): a lookup under a short timeout, and
/// writes queued without waiting (``ResultStoreWriter``). A store that fails, times out or has
/// no room in its queue costs a rate-limited warning and a metric, never a request.
final class ResultStoreStep: Sendable {
    /// The store.
    let store: any ResultStore
    /// Seconds a lookup may take before the request goes on without it.
    let timeout: Double
    /// Seconds a write may take before the queue moves on to the next.
    let writeTimeout: Double
    private let metrics: ServiceMetrics
    private let warnings: RateLimitedWarning
    /// Entries found under another key, warned of apart so that store errors do not hide them.
    private let mismatchWarnings: RateLimitedWarning
    private let writer: ResultStoreWriter
    /// Keys queued and not yet written: a key is queued once however many requests meet it.
    private let queued = QueuedResultKeys()

    init(store: any ResultStore, timeout: Double, queue: Int, queueBytes: Int, metrics: ServiceMetrics, logger: Logger) {
        self.store = store
        self.timeout = timeout
        let writeTimeout = max(10, timeout * 10)
        self.writeTimeout = writeTimeout
        self.metrics = metrics
        let warnings = RateLimitedWarning(logger: logger)
        self.warnings = warnings
        mismatchWarnings = RateLimitedWarning(logger: logger)
        let queued = queued
        writer = ResultStoreWriter(maxJobs: queue, maxBytes: queueBytes) { job in
            defer { queued.remove(job.key) }
            do {
                try await withResultStoreTimeout(writeTimeout) { try await store.store(job.result, for: job.key) }
                metrics.recordResultStore(.writes)
            } catch {
                metrics.recordResultStore(.errors)
                warnings.warn("result store: write of \(job.key) failed, result not stored: \(error)")
            }
        }
    }

    /// The unexpired entry under `key` at `now`, or `nil` (none, expired, written for another
    /// key, or the store failed).
    func lookup(_ key: ResultStoreKey, now: Date) async -> StoredResult? {
        let store = store
        do {
            let entry = try await withResultStoreTimeout(timeout) { try await store.entry(for: key) }
            if let entry, entry.key != key {
                metrics.recordResultStore(.keyMismatches)
                metrics.recordResultStore(.misses)
                mismatchWarnings.warn("result store: the entry under \(key) was written for \(entry.key) (misplaced by a copy or restore?), rendering anew")
                return nil
            }
            guard let entry, entry.expiresAt > now else {
                metrics.recordResultStore(.misses)
                return nil
            }
            metrics.recordResultStore(.hits)
            return entry
        } catch is CancellationError {
            return nil
        } catch {
            metrics.recordResultStore(.errors)
            warnings.warn("result store: lookup of \(key) failed, rendering without it: \(error)")
            return nil
        }
    }

    /// Queues `result` to be written under `key` (unless a write of `key` is queued already);
    /// when the queue is full it is dropped and counted.
    func keep(_ result: StoredResult, for key: ResultStoreKey) {
        guard queued.insert(key) else { return }
        guard !writer.enqueue(.init(key: key, result: result)) else { return }
        queued.remove(key)
        metrics.recordResultStore(.dropped)
        warnings.warn("result store: write queue full (\(writer.maxJobs) results), result not stored")
    }

    /// Writes queued now.
    var pendingWrites: Int { writer.pending }

    /// Waits until the queued writes are done, for at most the write timeout per queued write
    /// (at shutdown: renders still queued would otherwise be lost).
    func flush() async {
        let pending = max(1, writer.pending + 1)
        let writer = writer
        do {
            try await withResultStoreTimeout(writeTimeout * Double(pending)) { await writer.idle() }
        } catch {
            warnings.warn("result store: \(writer.pending) queued results not written at shutdown")
        }
    }
}
