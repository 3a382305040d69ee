import Foundation
import Testing
import WebImageCore

/// Stopping CPU-bound work that nobody waits for any more (the service's processing deadline).
@Suite("Work cancellation on the processing pool")
struct WorkCancellationTests {
    static func pattern(width: Int, height: Int) -> PixelBuffer {
        PixelBuffer.make(width: width, height: height) { out in
            for index in out.indices { out[index] = index % 4 == 3 ? 255 : UInt8(truncatingIfNeeded: index &* 31) }
        }
    }

    @Test("Given a running pool job whose task is cancelled, then the job sees WorkCancellation.current set")
    func runningJobSeesTheFlag() async throws {
        let pool = ProcessingPool(name: "test.cancel", width: 1)
        let started = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let task = Task {
            try await pool.run { () -> (before: Bool, after: Bool) in
                let before = WorkCancellation.isCurrentCancelled
                started.signal()
                release.wait()
                return (before, WorkCancellation.isCurrentCancelled)
            }
        }
        await Task.detached { started.wait() }.value
        task.cancel()
        release.signal()
        let seen = try await task.value
        #expect(seen.before == false)
        #expect(seen.after == true, "a started job runs to its end but is told to stop")
        #expect(WorkCancellation.current == nil, "outside a job there is no flag")
    }

    @Test("Given a set flag, then the blurs and the resampler compute no rows")
    func loopsStopAtOnce() {
        let pixels = Self.pattern(width: 64, height: 48)
        let flag = WorkCancellation()
        flag.cancel()
        let (exact, resampled) = flag.installed { (pixels.blurredExactly(sigma: 20), Resampler().resample(pixels, to: PixelSize(width: 300, height: 200))) }
        #expect(exact.bytes == pixels.bytes, "the blur returned before its first row")
        #expect(resampled.bytes.allSatisfy { $0 == 0 }, "no output row was made")
        // Without the flag the same calls do their work.
        #expect(pixels.blurredExactly(sigma: 20).bytes != pixels.bytes)
        #expect(Resampler().resample(pixels, to: PixelSize(width: 300, height: 200)).bytes.contains { $0 != 0 })
    }
}
