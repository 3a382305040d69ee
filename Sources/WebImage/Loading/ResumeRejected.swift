import Foundation

/// A resumed request was answered with something other than a fitting `206` or a `200`: the
/// downloader sends it again without a range.
struct ResumeRejected: Error {}
