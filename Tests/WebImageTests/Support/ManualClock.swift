import Foundation
import Synchronization

/// A clock that moves only when told to.
final class ManualClock: Sendable {
    private let time = Mutex<Double>(1000)
    func advance(_ seconds: Double) { time.withLock { $0 += seconds } }
    var now: Double { time.withLock { $0 } }
}
