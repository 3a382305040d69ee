import Foundation

/// What a transfer hands to its completion: the whole body and the state the completion needs.
struct ReceivedBody: Sendable {
    let data: Data
    let response: ImageResponseInfo
    let progressive: ProgressiveDecoding?
    let throttle: ProgressThrottle
    /// What to keep if the body turns out to be cut short (SPEC X-3).
    let resumable: ResumableDataStore.Entry?
}
