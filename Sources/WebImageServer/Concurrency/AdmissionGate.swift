import Synchronization

/// Bounds the requests that render or wait to render: `workers` run, `queue` more may wait,
/// the rest are refused at once with 429 (SPEC V-8).
final class AdmissionGate: Sendable {
    private let admitted = Mutex(0)
    let capacity: Int

    init(workers: Int, queue: Int) { capacity = max(1, workers) + max(0, queue) }

    /// Takes a place, or returns `false` when every place is taken.
    func enter() -> Bool {
        admitted.withLock { count in
            guard count < capacity else { return false }
            count += 1
            return true
        }
    }

    /// Gives a place back.
    func leave() { admitted.withLock { $0 -= 1 } }

    /// Places taken now.
    var count: Int { admitted.withLock { $0 } }
}
