import Dispatch
import Foundation
import Synchronization

/// A status line for long work that reports no progress of its own (cleaning or clearing a
/// large cache): on a terminal, once the work has taken more than half a second, standard error
/// shows `label… 2.4 s`, redrawn ten times a second and erased at the end. Off a terminal it
/// prints nothing, so logs and pipes stay clean.
enum ActivityIndicator {
    static func run<T>(_ label: String, interactive: Bool = ProgressReporter.isTerminal, _ work: () throws -> T) rethrows -> T {
        guard interactive else { return try work() }
        let finished = Mutex(false)
        let stopped = DispatchSemaphore(value: 0)
        let start = ContinuousClock.now
        let drawer = Thread {
            var drew = false
            while !finished.withLock({ $0 }) {
                Thread.sleep(forTimeInterval: 0.1)
                let elapsed = ContinuousClock.now - start
                guard elapsed > .milliseconds(500), !finished.withLock({ $0 }) else { continue }
                let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
                FileHandle.standardError.write(Data(String(format: "\r%@… %.1f s", label, seconds).utf8))
                drew = true
            }
            if drew { FileHandle.standardError.write(Data("\r\u{1B}[2K".utf8)) }
            stopped.signal()
        }
        drawer.start()
        defer {
            finished.withLock { $0 = true }
            stopped.wait()
        }
        return try work()
    }
}
