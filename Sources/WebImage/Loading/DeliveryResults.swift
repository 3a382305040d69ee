import Foundation
import Synchronization

/// The results already decoded from one body, by delivery group: shared by the decode jobs of
/// a delivery and reused for the callers that joined during it. Also counts the decode jobs of
/// each delivery still running, so the last one to finish knows it. State in a `Mutex`.
final class DeliveryResults: Sendable {
    private struct State {
        var results: [DeliveryGroup: Result<ImageLoaderResult, WebImageError>] = [:]
        /// Jobs still running, by delivery (``beginDelivery(jobs:)``).
        var remaining: [Int: Int] = [:]
        var nextDelivery = 0
    }

    private let state = Mutex(State())

    subscript(key: DeliveryGroup) -> Result<ImageLoaderResult, WebImageError>? {
        get { state.withLock { $0.results[key] } }
        set { state.withLock { $0.results[key] = newValue } }
    }

    /// Starts counting a delivery of `jobs` decode jobs; returns its number.
    func beginDelivery(jobs: Int) -> Int {
        state.withLock { state in
            let delivery = state.nextDelivery
            state.nextDelivery &+= 1
            state.remaining[delivery] = jobs
            return delivery
        }
    }

    /// One job of `delivery` finished: `true` for the last one.
    func endJob(of delivery: Int) -> Bool {
        state.withLock { state in
            let left = (state.remaining[delivery] ?? 1) - 1
            state.remaining[delivery] = left > 0 ? left : nil
            return left <= 0
        }
    }
}
