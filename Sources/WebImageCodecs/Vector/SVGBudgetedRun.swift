import Dispatch
import Foundation
import Synchronization
import WebImageCore

/// The moment a budgeted drawing must stop, shared by the waiting caller and the drawing
/// thread. Sendable: its only mutable state is an atomic.
final class SVGDrawingDeadline: Sendable {
    /// The budget's length.
    let seconds: Double
    private let end: ContinuousClock.Instant
    private let abandoned = Atomic<Bool>(false)

    init(seconds: Double) {
        self.seconds = seconds
        end = .now + .milliseconds(Int64(SVGDrawingDeadline.milliseconds(seconds)))
    }

    /// Whether the drawing should stop: the time is up, or the caller stopped waiting.
    var isPast: Bool { abandoned.load(ordering: .relaxed) || ContinuousClock.now >= end }

    /// `seconds` as whole milliseconds, 0…10⁹ (not a number or negative: 0; at most 10⁶ s).
    static func milliseconds(_ seconds: Double) -> Int {
        guard seconds.isFinite, seconds > 0 else { return seconds == .infinity ? 1_000_000_000 : 0 }
        return Int(min(seconds, 1e6) * 1000)
    }

    func abandon() { abandoned.store(true, ordering: .relaxed) }

    /// The error of a drawing stopped by this deadline.
    var timedOut: WebImageError { .timedOut(.render(seconds: seconds)) }
}

/// Counts drawings that overran their budget and still run in the background
/// (``SVGRenderBudget/maxOverrunning``). Sendable: its count is behind a `Mutex`.
final class SVGOverrunLimiter: Sendable {
    /// The process-wide limiter every ``SVGCoder`` uses.
    static let shared = SVGOverrunLimiter()

    private let running = Mutex(0)

    /// Drawings abandoned and still running.
    var overrunning: Int { running.withLock { $0 } }

    fileprivate func add() { running.withLock { $0 += 1 } }
    fileprivate func remove() { running.withLock { $0 -= 1 } }
}

/// Runs `work` on a thread of its own (``SVGDrawingThread``) and waits at most the budget's ``SVGRenderBudget/maxDuration``
/// (the third layer of ``SVGRenderBudget``).
enum SVGBudgetedRun {
    /// Where a run stands; the waiting caller and the thread settle it under one lock.
    private enum State<Value> {
        case running
        case finished(Result<Value, any Error>)
        case abandoned
    }

    /// Holds a run's state. Sendable: the state is only touched under `state`'s `Mutex`.
    private final class Outcome<Value: Sendable>: Sendable {
        let state = Mutex<State<Value>>(.running)
    }

    /// The result of `work`, or `timedOut(.render(seconds:))` when it did not finish in time
    /// (it is then abandoned: it runs on, counted by `limiter`, and its result is dropped), when
    /// `limiter` already counts `budget.maxOverrunning` abandoned runs, or when the system
    /// cannot start a thread for it.
    ///
    /// When `work` finishes in time, its thread has ended by the time this returns: nothing
    /// `work` captured (the caller's document) or returned is still held by it.
    static func run<Value: Sendable>(
        budget: SVGRenderBudget, limiter: SVGOverrunLimiter = .shared,
        _ work: @escaping @Sendable (SVGDrawingDeadline) throws -> Value
    ) throws -> Value {
        guard limiter.overrunning < budget.maxOverrunning else { throw budget.timedOut }
        let deadline = SVGDrawingDeadline(seconds: budget.maxDuration)
        let outcome = Outcome<Value>()
        let done = DispatchSemaphore(value: 0)
        let thread: SVGDrawingThread
        do {
            // librsvg recurses through the document tree; give it the stack of a main thread.
            thread = try SVGDrawingThread(stackSize: 16 * 1024 * 1024) {
                let result = Result { try work(deadline) }
                outcome.state.withLock { state in
                    if case .abandoned = state {
                        limiter.remove()
                    } else {
                        state = .finished(result)
                    }
                }
                done.signal()
            }
        } catch {
            throw budget.timedOut
        }
        let waited = done.wait(timeout: .now() + .milliseconds(SVGDrawingDeadline.milliseconds(budget.maxDuration)))
        let result: Result<Value, any Error>? = outcome.state.withLock { state in
            switch state {
            case .finished(let result): return result
            case .abandoned: return nil
            case .running:
                precondition(waited == .timedOut, "the drawing thread signalled before settling")
                state = .abandoned
                limiter.add()
                return nil
            }
        }
        guard let result else {
            thread.detach()
            deadline.abandon()
            throw budget.timedOut
        }
        // Settled: wait the moment it takes the thread to end, so that it does not let go of
        // the work's captures and result after this call has returned.
        thread.join()
        return try result.get()
    }
}
