import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Progress of a batch of loads on standard error: a redrawn bar with done/total, rate and ETA
/// when standard error is a terminal, one plain line per finished item otherwise (logs, pipes).
/// The bar is coloured under the same rule as the rest of the tool (``Console/colorsStderr``).
final class ProgressReporter: Sendable {
    /// Whether standard error is an interactive terminal.
    static let isTerminal = isatty(STDERR_FILENO) == 1 && ProcessInfo.processInfo.environment["TERM"] != "dumb"

    private struct State {
        var done = 0
        var total: Int
        var drawn = false
    }

    private let state: Mutex<State>
    private let start = ContinuousClock.now
    private let interactive: Bool

    init(total: Int, interactive: Bool = ProgressReporter.isTerminal) {
        state = Mutex(State(total: total))
        self.interactive = interactive
    }

    /// Records that one item ended; `line` describes it. Off a terminal every line is printed;
    /// on a terminal only error lines are (above the bar).
    func itemEnded(_ line: String, isError: Bool = false) {
        state.withLock { state in
            state.done += 1
            if interactive {
                if isError { printAboveBar(line, &state) }
                draw(&state)
            } else {
                Console.note(line)
            }
        }
    }

    /// Sets the done count directly (the prefetcher reports counts, not items) and redraws.
    func update(done: Int, total: Int) {
        state.withLock { state in
            state.done = done
            state.total = total
            if interactive { draw(&state) }
        }
    }

    /// Prints a message (above the bar on a terminal).
    func message(_ line: String) {
        state.withLock { state in
            if interactive {
                printAboveBar(line, &state)
                draw(&state)
            } else {
                Console.note(line)
            }
        }
    }

    private func printAboveBar(_ line: String, _ state: inout State) {
        if state.drawn {
            FileHandle.standardError.write(Data("\r\u{1B}[2K".utf8))
            state.drawn = false
        }
        Console.note(line)
    }

    /// Ends the bar's line.
    func finish() {
        state.withLock { state in
            if state.drawn { FileHandle.standardError.write(Data("\n".utf8)) }
            state.drawn = false
        }
    }

    private func draw(_ state: inout State) {
        let width = 30
        let total = max(state.total, 1)
        let filled = min(width, state.done * width / total)
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        let elapsed = Self.seconds(ContinuousClock.now - start)
        let rate = elapsed > 0 ? Double(state.done) / elapsed : 0
        let remaining = max(0, state.total - state.done)
        let eta = rate > 0 ? String(format: "%.0fs", Double(remaining) / rate) : "?"
        let text = "[\(Console.styled(bar, .cyan, enabled: Console.colorsStderr))] \(state.done)/\(state.total)  "
            + String(format: "%.1f/s", rate) + "  ETA \(eta)"
        FileHandle.standardError.write(Data("\r\u{1B}[2K\(text)".utf8))
        state.drawn = true
    }

    /// A duration in seconds.
    static func seconds(_ duration: Duration) -> Double {
        let parts = duration.components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}
