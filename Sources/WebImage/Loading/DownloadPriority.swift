/// How urgently a download should start when the downloader's slots are full (SPEC D-4).
///
/// Queued downloads start highest priority first; within one priority the downloader's
/// ``ImageDownloaderConfiguration/ExecutionOrder`` decides.
public enum DownloadPriority: Int, Sendable, Hashable, Comparable, CaseIterable {
    /// Started after every queued normal and high download.
    case low = 0
    /// The default.
    case normal = 1
    /// Started before every queued normal and low download.
    case high = 2

    public static func < (lhs: DownloadPriority, rhs: DownloadPriority) -> Bool {
        lhs.rawValue < rhs.rawValue
    }

    /// The priority `options` ask for (`highPriority` wins over `lowPriority`), unless the
    /// context's ``WebImageContext/downloadPriority`` overrides it.
    public init(options: WebImageOptions, context: WebImageContext = WebImageContext()) {
        if let explicit = context.downloadPriority {
            self = explicit
        } else if options.contains(.highPriority) {
            self = .high
        } else if options.contains(.lowPriority) {
            self = .low
        } else {
            self = .normal
        }
    }
}
