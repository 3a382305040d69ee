import NIOCore
import NIOPosix
import Testing
import WebImageCore

@testable import WebImageServer

/// Where the request line runs (SPEC V-8, C-7): its async steps on the connection's event loop
/// (``EventLoopTaskExecutor``), what blocks off it (``offLoop(_:)``), and the codec work on the
/// processing pool, never on the loop.
@Suite(.timeLimit(.minutes(1))) struct EventLoopTaskExecutorTests {
    /// Where each part of a loop-bound request line ran.
    struct Places: Sendable {
        var afterSuspension = false
        var requestTask = false
        var offLoop = true
        var poolWork = true
        var afterPool = false
        var hasCurrent = false
    }

    @Test func givenALoopBoundTask_whenItSuspendsStartsTasksAndUsesThePool_thenOnlyThePoolWorkAndOffLoopStepsLeaveTheLoop() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = group.next()
        let pool = ProcessingPool(name: "test.loop-bound", width: 1)
        let executor = EventLoopTaskExecutor(loop)
        let places = try await EventLoopTaskExecutor.$current.withValue(executor) {
            try await withTaskExecutorPreference(executor) { () async throws -> Places in
                var places = Places()
                await Task.yield()
                places.afterSuspension = loop.inEventLoop
                places.hasCurrent = EventLoopTaskExecutor.current === executor
                places.requestTask = try await requestTask { loop.inEventLoop }.value
                places.offLoop = await offLoop { loop.inEventLoop }
                // Decode, transforms and encode run in `pool.run` (C-7): on a pool thread.
                places.poolWork = try await pool.run { loop.inEventLoop }
                places.afterPool = loop.inEventLoop
                return places
            }
        }
        #expect(places.afterSuspension)
        #expect(places.hasCurrent)
        #expect(places.requestTask)
        #expect(!places.offLoop)
        #expect(!places.poolWork)
        #expect(places.afterPool)
        try await group.shutdownGracefully()
    }

    @Test func givenNoConnection_whenTheLineStartsATask_thenItRunsWhereTaskRuns() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = group.next()
        #expect(EventLoopTaskExecutor.current == nil)
        #expect(try await requestTask { loop.inEventLoop }.value == false)
        #expect(await offLoop { loop.inEventLoop } == false)
        try await group.shutdownGracefully()
    }

    @Test func givenALoopBoundTask_whenItsTimerFires_thenTheActionRunsOnTheLoop() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = group.next()
        let executor = EventLoopTaskExecutor(loop)
        let onLoop = await EventLoopTaskExecutor.$current.withValue(executor) {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                _ = RequestTimer.after(.milliseconds(1)) { continuation.resume(returning: loop.inEventLoop) }
            }
        }
        #expect(onLoop)
        let offLoop = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            _ = RequestTimer.after(.milliseconds(1)) { continuation.resume(returning: loop.inEventLoop) }
        }
        #expect(!offLoop)
        try await group.shutdownGracefully()
    }

    @Test func timerDelaysInNanosecondsAreClampedToWhatTheLoopTakes() {
        #expect(RequestTimer.nanoseconds(.milliseconds(1500)) == 1_500_000_000)
        #expect(RequestTimer.nanoseconds(.seconds(-3)) == 0)
        #expect(RequestTimer.nanoseconds(.seconds(Int64.max)) == .max)
    }
}
