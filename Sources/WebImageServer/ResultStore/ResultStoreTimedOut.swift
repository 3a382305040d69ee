/// A result-store call that took longer than its timeout.
struct ResultStoreTimedOut: Error, CustomStringConvertible {
    var seconds: Double
    var description: String { "no answer within \(seconds) s" }
}
