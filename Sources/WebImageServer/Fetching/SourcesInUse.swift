import Foundation
import Synchronization

/// The sources that requests hold right now, by source URL, so a source is in memory once: a
/// request for a source that another request is still rendering from takes the same bytes and
/// identity instead of reading (and hashing) a second copy from the source cache or the origin — the common case
/// of one image asked for in several sizes at once (`srcset`). It keeps no bytes alive itself:
/// an entry holds its bytes weakly and lasts only as long as some request holds them, and only
/// while the source counts as fresh (the same period the result cache reuses results for), so
/// it changes what is fetched, never what is answered.
final class SourcesInUse: Sendable {
    private struct Entry {
        weak var bytes: SourceBytes?
        var identity: String
        var lastModified: String?
        var freshUntil: ContinuousClock.Instant
    }

    private let entries = Mutex<[String: Entry]>([:])

    /// The source held for `key`, if a request still holds it and it is still fresh; its layer is
    /// `shared` and its freshness what is left of the original's.
    func source(for key: String, now: ContinuousClock.Instant = .now) -> SourceImage? {
        entries.withLock { entries -> SourceImage? in
            guard let entry = entries[key] else { return nil }
            guard let bytes = entry.bytes, now < entry.freshUntil else {
                entries[key] = nil
                return nil
            }
            let left = now.duration(to: entry.freshUntil)
            let seconds = Double(left.components.seconds) + Double(left.components.attoseconds) * 1e-18
            return SourceImage(bytes: bytes, identity: entry.identity, lastModified: entry.lastModified, layer: "shared", freshFor: seconds)
        }
    }

    /// Records `source`, just fetched for `key`, for requests that come while it is held. A
    /// source without freshness (`freshFor` 0) is not shared. Entries whose bytes are gone are
    /// dropped here, so the table holds at most the sources in use plus those released since the
    /// last insert.
    func insert(_ source: SourceImage, for key: String, now: ContinuousClock.Instant = .now) {
        guard source.freshFor > 0, source.freshFor.isFinite else { return }
        let entry = Entry(
            bytes: source.bytes, identity: source.identity, lastModified: source.lastModified,
            freshUntil: now + .milliseconds(Int64(min(source.freshFor, 86_400 * 365) * 1000)))
        entries.withLock { entries in
            entries = entries.filter { $0.value.bytes != nil }
            entries[key] = entry
        }
    }

    /// Entries in the table, live or not yet dropped (tests).
    var count: Int { entries.withLock { $0.count } }
}
