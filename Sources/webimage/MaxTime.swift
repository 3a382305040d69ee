import ArgumentParser
import Foundation
import Synchronization
import WebImage

/// `--max-time SECONDS` (SPEC R-2), as curl's: the longest one load may take in total —
/// connecting, the whole body however slowly it drips, decoding, transforming and, for
/// `convert`, encoding and writing. Shared by `fetch`, `prefetch`, `info` and `convert`.
struct MaxTimeOption: ParsableArguments {
    @Option(
        name: .customLong("max-time"),
        help: ArgumentHelp(
            "The most seconds one input may take in total (download, decode, convert), like curl's --max-time; "
                + "unlike --timeout, a server that sends a byte now and then cannot stretch it.",
            valueName: "seconds"))
    var maxTime: Double?

    func validate() throws {
        if let maxTime, !(maxTime > 0 && maxTime <= 86_400) {
            throw ValidationError("--max-time must be more than 0 and at most 86400 seconds.")
        }
    }

    /// Applies the deadline to a downloader configuration (its total deadline per download).
    func apply(to configuration: inout ImageDownloaderConfiguration) {
        if let maxTime { configuration.maximumDownloadDuration = maxTime }
    }

    /// Applies the deadline to a load's context (its total deadline through the manager).
    func apply(to context: inout WebImageContext) {
        if let maxTime { context.maximumLoadDuration = maxTime }
    }

    /// Runs `work` on a thread of its own and returns its result, or throws
    /// `timedOut(.load(seconds:))` when `--max-time` runs out first. The work is abandoned, not
    /// stopped (the process exits soon after); it may ask ``Deadline/claimCommit()`` before an
    /// irreversible step such as renaming the output into place, so that a run reported as
    /// timed out never leaves an output behind, and one that committed is not reported as
    /// timed out.
    /// - Parameter started: when the input's clock started (its download counts too).
    func run<T: Sendable>(
        started: ContinuousClock.Instant = .now, _ work: @escaping @Sendable (Deadline) throws -> T
    ) async throws -> T {
        let deadline = Deadline()
        guard let maxTime else { return try work(deadline) }
        let elapsed = started.duration(to: .now)
        let remaining = maxTime - (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
        guard remaining > 0 else { throw WebImageError.timedOut(.load(seconds: maxTime)) }
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            let once = Mutex(false)
            let resume: @Sendable (Result<T, any Error>) -> Void = { result in
                guard once.withLock({ done in defer { done = true }; return !done }) else { return }
                continuation.resume(with: result)
            }
            Thread {
                let result = Result { try work(deadline) }
                deadline.finish()
                resume(result)
            }.start()
            DispatchQueue.global().asyncAfter(deadline: .now() + remaining) {
                if deadline.expire() { resume(.failure(WebImageError.timedOut(.load(seconds: maxTime)))) }
            }
        }
    }

    /// Who got there first: the work committing its result, or the deadline.
    final class Deadline: Sendable {
        private enum State { case running, committed, expired }
        private let state = Mutex(State.running)

        /// Before an irreversible step: `true` when the work may go on (the deadline can no
        /// longer fire), `false` when the deadline already ran out.
        func claimCommit() -> Bool {
            state.withLock { state in
                guard state == .running else { return state == .committed }
                state = .committed
                return true
            }
        }

        /// The work ended (either way); the deadline can no longer fire.
        func finish() { _ = claimCommit() }

        /// The deadline ran out: `true` when the work had not committed.
        func expire() -> Bool {
            state.withLock { state in
                guard state == .running else { return false }
                state = .expired
                return true
            }
        }
    }
}
