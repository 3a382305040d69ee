import Foundation

/// The bytes of a finished download and what is needed to decode them.
struct DownloadedBody: Sendable {
    let data: Data
    let response: ImageResponseInfo
    let progressive: ProgressiveDecoding?
}
