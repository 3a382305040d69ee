import Foundation
import Testing
import WebImageTesting
#if canImport(Glibc)
import Glibc
#endif

/// The test servers' launcher: a long-lived child must hold no other child's descriptors (a
/// Foundation `Process` waits for its socket pair's far end to close) and must take `SIGTERM`.
@Suite struct SpawnedChildTests {
    /// The descriptors `pid` has open, by number.
    static func openDescriptors(_ pid: pid_t) throws -> [Int] {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").compactMap(Int.init).sorted()
    }

    /// `SigBlk` of `pid`'s main thread, as a bit mask.
    static func blockedSignals(_ pid: pid_t) throws -> UInt64 {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("SigBlk:") })
        return try #require(UInt64(line.dropFirst("SigBlk:".count).trimmingCharacters(in: .whitespaces), radix: 16))
    }

    /// Waits, off the cooperative pool, for the child to end (a hang guard, not a timing).
    static func ended(_ child: SpawnedChild, within seconds: Double = 120) -> Bool {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while child.isRunning {
            if ContinuousClock.now > deadline { return false }
            usleep(10_000)
        }
        return true
    }

    @Test("Given a socket pair open without close-on-exec and SIGTERM blocked on the spawning thread, when a child is spawned, then it holds only its standard streams, blocks nothing, and ends at the end of its input")
    func inheritsOnlyItsStreams() throws {
        var pair: [Int32] = [-1, -1]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0)
        defer { close(pair[0]); close(pair[1]) }

        // Spawned from a thread that blocks SIGTERM, as Dispatch's worker threads do.
        final class Box: @unchecked Sendable {  // written by the thread, read after `done` is signalled
            var child: SpawnedChild?
            var error: (any Error)?
        }
        let box = Box()
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            var blocked = sigset_t()
            sigemptyset(&blocked)
            sigaddset(&blocked, SIGTERM)
            pthread_sigmask(SIG_BLOCK, &blocked, nil)
            do { box.child = try SpawnedChild(["cat"], pipedInput: true, outputPath: nil) } catch { box.error = error }
            done.signal()
        }
        thread.start()
        #expect(done.wait(timeout: .now() + 120) == .success)
        if let error = box.error { throw error }
        let child = try #require(box.child)

        #expect(try Self.openDescriptors(child.pid) == [0, 1, 2])
        #expect(try Self.blockedSignals(child.pid) == 0)
        #expect(child.isRunning)
        child.closeInput()
        #expect(Self.ended(child))
    }

    @Test("Given a child that does not read its input, when terminated, then it ends")
    func terminates() throws {
        let child = try SpawnedChild(["sleep", "600"], pipedInput: false, outputPath: nil)
        #expect(child.isRunning)
        child.terminate()
        #expect(Self.ended(child))
        #expect(!child.isRunning)
    }
}
