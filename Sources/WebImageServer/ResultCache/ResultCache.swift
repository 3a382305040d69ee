import HTTPTypes
import NIOCore
import Synchronization
import WebImage

/// An in-memory LRU of rendered results bounded by their total bytes (SPEC V-8), and an index
/// from request paths to the result they got (``KnownAnswer``). The results are kept in the
/// library's ``LRUList`` (O(1) lookup, promotion and eviction under the one lock). The index
/// only points at results: an evicted result takes its index entries with it (lazily), so the
/// byte bound holds for everything kept. The index's own size is bounded by an estimate of what
/// its entries hold (request path, headers, overhead), not by the paths alone: with a stream of
/// distinct URLs, the evicted results' entries would otherwise pile up until the bound.
final class ResultCache: Sendable {
    private struct Variants {
        var any: KnownAnswer?
        var avif: KnownAnswer?
        var webp: KnownAnswer?
        var other: KnownAnswer?

        subscript(variant: FormatVariant) -> KnownAnswer? {
            get {
                switch variant {
                case .any: any
                case .avif: avif
                case .webp: webp
                case .other: other
                }
            }
            set {
                switch variant {
                case .any: any = newValue
                case .avif: avif = newValue
                case .webp: webp = newValue
                case .other: other = newValue
                }
            }
        }
    }

    private struct State {
        /// The results by ETag, each costing its body's bytes.
        var entries = LRUList<RenderedResult>()
        var answers: [String: Variants] = [:]
        var answerBytes = 0
    }
    private let state = Mutex(State())
    /// The byte bound.
    let capacity: Int
    /// The bound on the index's estimated bytes (paths, headers, overhead); past it the index
    /// starts over.
    let indexCapacity: Int

    init(capacity: Int, indexCapacity: Int = 4 * 1024 * 1024) {
        self.capacity = max(0, capacity)
        self.indexCapacity = max(0, indexCapacity)
    }

    /// The result under `key`, made the most recently used.
    func value(for key: String) -> RenderedResult? {
        state.withLock { $0.entries.promote(key)?.value }
    }

    /// Keeps `value` under `key` as the most recently used result, then evicts the least
    /// recently used ones until the bytes fit; a result larger than the bound is not kept.
    func insert(_ value: RenderedResult, for key: String) {
        guard value.body.readableBytes <= capacity else { return }
        state.withLock { state in
            state.entries.insert(value, forKey: key, cost: value.body.readableBytes, now: 0)
            while state.entries.totalCost > capacity, state.entries.removeLeastRecentlyUsed() != nil {}
        }
    }

    /// The answer `path` got for `variant` (or for any `Accept`), with its result, if both are
    /// still kept; `variant` is asked for only when the path's answer depends on `Accept`.
    func answer(for path: String, variant: () -> FormatVariant) -> (KnownAnswer, RenderedResult)? {
        state.withLock { state in
            guard let variants = state.answers[path] else { return nil }
            let chosen = variants.any != nil ? FormatVariant.any : variant()
            guard let answer = variants[chosen] else { return nil }
            guard let entry = state.entries.promote(answer.etag) else {
                state.answers[path]?[chosen] = nil
                return nil
            }
            return (answer, entry.value)
        }
    }

    /// Remembers what `path` answered for `variant` (only while its result is kept).
    func remember(_ answer: KnownAnswer, for path: String, variant: FormatVariant) {
        let cost = path.utf8.count + answer.estimatedBytes
        guard cost <= indexCapacity else { return }
        state.withLock { state in
            guard state.entries.peek(answer.etag) != nil else { return }
            if state.answerBytes + cost > indexCapacity {
                state.answers = [:]
                state.answerBytes = 0
            }
            state.answerBytes += cost
            if state.answers[path] == nil { state.answers[path] = Variants() }
            state.answers[path]?[variant] = answer
        }
    }

    /// The index's entries (request paths) and their estimated bytes, for tests.
    var indexUsage: (paths: Int, bytes: Int) { state.withLock { ($0.answers.count, $0.answerBytes) } }

    /// The bytes of the results kept.
    var totalBytes: Int { state.withLock { $0.entries.totalCost } }

    /// The results' keys from most to least recently used, for tests.
    var keysByRecency: [String] { state.withLock { $0.entries.keysByRecency } }
}
