import Foundation
import Synchronization
import Testing
import WebImageCore

/// A lock-protected value shared with escaping closures.
final class Shared<Value: Sendable>: Sendable {
    private let storage: Mutex<Value>
    init(_ value: Value) { storage = Mutex(value) }
    func withLock<R: Sendable>(_ body: (inout Value) -> R) -> R { storage.withLock { body(&$0) } }
}

@Suite("Processing pool (C-7)")
struct ProcessingPoolTests {
    @Test("Given many jobs, when run, then no more than width run at once and all complete")
    func boundedWidth() async throws {
        let pool = ProcessingPool(name: "test.pool", width: 2)
        let live = Shared((current: 0, peak: 0))
        try await withThrowingTaskGroup(of: Int.self) { group in
            for i in 0..<20 {
                group.addTask {
                    try await pool.run {
                        live.withLock { $0.current += 1; $0.peak = max($0.peak, $0.current) }
                        Thread.sleep(forTimeInterval: 0.002)
                        live.withLock { $0.current -= 1 }
                        return i
                    }
                }
            }
            var sum = 0
            for try await value in group { sum += value }
            #expect(sum == (0..<20).reduce(0, +))
        }
        #expect(live.withLock { $0.peak } <= 2)
        #expect(live.withLock { $0.peak } >= 1)
    }

    @Test("Given a cancelled task, when it asks the pool, then the work never runs")
    func cancelledBeforeStart() async {
        let pool = ProcessingPool(name: "test.pool.cancel", width: 1)
        let ran = Shared(false)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await pool.run { ran.withLock { $0 = true } }
        }
        await #expect(throws: WebImageError.self) { try await task.value }
        #expect(ran.withLock { $0 } == false)
    }

    @Test("Given work that throws, then the caller receives the error")
    func errorsPropagate() async {
        let pool = ProcessingPool(name: "test.pool.error", width: 1)
        await #expect(throws: WebImageError.self) {
            try await pool.run { () throws -> Int in throw WebImageError.badImageData(reason: "x") }
        }
    }
}
