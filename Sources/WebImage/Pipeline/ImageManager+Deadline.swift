import Dispatch

extension ImageManager {
    /// Ends `operation` with `timedOut(.load(seconds:))` when it is still running `seconds` from
    /// now (SPEC R-2). Nothing is scheduled for `nil` or a value that is not a positive finite
    /// number. The timer holds the operation weakly: a load that ended is not kept alive.
    func scheduleLoadDeadline(_ seconds: Double?, for operation: ImageCombinedOperation) {
        guard let seconds, seconds.isFinite, seconds > 0 else { return }
        let nanoseconds = min(seconds * 1e9, Double(Int64.max / 2))
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(nanoseconds))) { [weak operation] in
            guard let operation, !operation.hasEnded else { return }
            operation.stop(with: .timedOut(.load(seconds: seconds)))
        }
    }
}
