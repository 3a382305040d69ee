import Foundation
import Synchronization

/// The partial bodies of interrupted downloads, kept so that the next download of the same URL
/// asks the server only for the rest (SPEC X-3).
///
/// An entry is kept when a download that could be resumed — a `200` with `Accept-Ranges:
/// bytes`, a known `Content-Length`, no `Content-Encoding`, and a strong `ETag` or (without any
/// `ETag`) a strong `Last-Modified`, one at least 60 s older than the response's `Date` —
/// fails or is cancelled after some of its body arrived. The next download of
/// the URL takes the entry out and sends `Range: bytes=<count>-` with `If-Range: <validator>`.
/// Entries live in memory only, oldest dropped first beyond ``capacity`` bytes or
/// ``maximumEntries`` entries.
final class ResumableDataStore: Sendable {
    /// A partial body and the validator that identifies its representation.
    struct Entry: Sendable, Equatable {
        /// The body bytes received before the interruption.
        let data: Data
        /// The strong `ETag`, else the `Last-Modified`, of the interrupted response.
        let validator: String
        /// Whether ``validator`` is an entity tag (else a date).
        let validatorIsEntityTag: Bool
        /// The size of the whole representation the bytes belong to.
        let totalSize: Int64
    }

    /// The most entries kept at once.
    static let maximumEntries = 64

    /// The most bytes kept at once; 0 keeps nothing.
    let capacity: Int
    /// Entries in the order they were stored, oldest first.
    private let entries = Mutex<[(url: URL, entry: Entry)]>([])

    /// A store keeping at most `capacity` bytes.
    init(capacity: Int) {
        self.capacity = max(0, capacity)
    }

    /// Keeps `entry` for `url`, replacing an older one, and drops the oldest entries beyond the
    /// limits. An entry larger than the capacity is not kept.
    func store(_ entry: Entry, for url: URL) {
        guard !entry.data.isEmpty, entry.data.count <= capacity else { return }
        entries.withLock { entries in
            entries.removeAll { $0.url == url }
            entries.append((url, entry))
            var total = entries.reduce(0) { $0 + $1.entry.data.count }
            while total > capacity || entries.count > Self.maximumEntries {
                total -= entries.removeFirst().entry.data.count
            }
        }
    }

    /// Removes and returns the entry for `url`, if any.
    func take(for url: URL) -> Entry? {
        entries.withLock { entries in
            guard let index = entries.firstIndex(where: { $0.url == url }) else { return nil }
            return entries.remove(at: index).entry
        }
    }

    /// The bytes kept now.
    var totalBytes: Int { entries.withLock { $0.reduce(0) { $0 + $1.entry.data.count } } }
    /// The entries kept now.
    var count: Int { entries.withLock { $0.count } }
}
