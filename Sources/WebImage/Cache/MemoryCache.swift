import Foundation
import Synchronization
import WebImageCore

/// A thread-safe key → ``/WebImageCore/Image`` store with a cost limit and a count limit (SPEC K-1…K-4).
///
/// - Eviction: **strict LRU**. Every hit moves the entry to the front of a doubly linked list
///   (array-backed, index-linked, O(1)); when a limit is exceeded the least recently used
///   entries go first.
/// - Hits are synchronous and O(1): one dictionary lookup and a few index writes under a
///   `Mutex`; the image is returned by reference, never copied.
/// - Weak layer (``Configuration/shouldUseWeakMemoryCache``): every stored image is also
///   remembered weakly. An image evicted by a limit but still referenced elsewhere (shown on
///   screen, held by a caller) is found again by key and put back instead of being decoded
///   twice. Explicit removal (``removeImage(forKey:)``, ``removeAll()``) forgets it too.
/// - Time to live (``Configuration/entryLifetime``, or per entry through
///   ``setImage(_:forKey:cost:expiresAfter:)``): entries older than it are misses. Expired
///   entries also leave ``totalCost`` and ``count`` without being read: every store looks at a
///   few entries (``expirySweepPerStore``) and removes the expired ones, so each entry is looked
///   at within a bounded number of stores; ``removeExpired()`` sweeps them all at once (an
///   owner can call it from its own timer). The clock is injectable
///   (``init(configuration:now:)``), so expiry is testable without waiting.
public final class MemoryCache: Sendable {
    private struct WeakImage {
        weak var image: Image?
        /// When it was stored and its own lifetime, so an image found again through the weak
        /// layer keeps its age and still expires.
        var insertedAt: TimeInterval
        var lifetime: TimeInterval?
    }

    private struct State {
        var configuration: Configuration
        var list = LRUList<Image>()
        var weak: [String: WeakImage] = [:]
        var weakSweepThreshold = 256
    }

    private let state: Mutex<State>
    private let now: @Sendable () -> TimeInterval

    /// How many entries each store looks at for expiry (the amortised sweep).
    public static let expirySweepPerStore = 4

    /// A memory cache with `configuration`.
    public convenience init(configuration: Configuration = Configuration()) {
        self.init(configuration: configuration, now: { ProcessInfo.processInfo.systemUptime })
    }

    /// A memory cache whose clock is `now`: any monotonic time in seconds (the default is the
    /// system uptime). Tests pass a fake clock to make entries expire without waiting.
    public init(configuration: Configuration, now: @escaping @Sendable () -> TimeInterval) {
        self.state = Mutex(State(configuration: configuration))
        self.now = now
    }

    /// The current configuration. Setting it applies the new limits at once.
    public var configuration: Configuration {
        get { state.withLock { $0.configuration } }
        set {
            state.withLock { state in
                state.configuration = newValue
                if !newValue.shouldUseWeakMemoryCache { state.weak.removeAll() }
                Self.enforceLimits(&state)
            }
        }
    }

    /// The image stored under `key`, or `nil`. A hit makes the entry most recently used.
    /// Synchronous and O(1); the image is shared, not copied.
    public func image(forKey key: String) -> Image? {
        state.withLock { state in
            if let hit = state.list.promote(key) {
                // The clock is read only when entries can expire: a plain hit costs no time call.
                if let lifetime = hit.lifetime ?? state.configuration.entryLifetime, now() - hit.insertedAt > lifetime {
                    state.list.remove(key)
                    state.weak[key] = nil
                    return nil
                }
                return hit.value
            }
            guard state.configuration.shouldUseWeakMemoryCache, let box = state.weak[key] else { return nil }
            guard let image = box.image else {
                state.weak[key] = nil
                return nil
            }
            if let lifetime = box.lifetime ?? state.configuration.entryLifetime, now() - box.insertedAt > lifetime {
                state.weak[key] = nil
                return nil
            }
            // Found again through the weak layer: put it back (with its age and lifetime).
            if Self.fitsEntryLimit(image.cost, state.configuration) {
                state.list.insert(image, forKey: key, cost: image.cost, now: box.insertedAt, lifetime: box.lifetime)
                Self.enforceLimits(&state)
            }
            return image
        }
    }

    /// Stores `image` under `key` as the most recently used entry, then evicts least recently
    /// used entries until both limits hold.
    ///
    /// - Parameters:
    ///   - image: the image, kept by reference (no pixel copy).
    ///   - key: the cache key.
    ///   - cost: the entry's cost; default ``/WebImageCore/Image/cost``. An entry costing more
    ///     than ``Configuration/maxEntryCostFraction`` of the cost limit is not kept (any older
    ///     entry under `key` is removed), though the weak layer still remembers it.
    ///   - expiresAfter: this entry's time to live in seconds (`.infinity`: never expires);
    ///     `nil` (default) follows ``Configuration/entryLifetime``.
    ///
    /// Each store also looks at up to ``expirySweepPerStore`` entries and removes those that
    /// have expired, so expired entries leave the totals even when nobody reads them.
    public func setImage(_ image: Image, forKey key: String, cost: Int? = nil, expiresAfter: TimeInterval? = nil) {
        let cost = max(0, cost ?? image.cost)
        let lifetime = expiresAfter.map { max(0, $0) }
        let time = now()
        // Images evicted here are released after the lock is left.
        var evicted: [Image] = []
        state.withLock { state in
            evicted = Self.sweepExpired(&state, at: time, examining: Self.expirySweepPerStore)
            if state.configuration.shouldUseWeakMemoryCache {
                state.weak[key] = WeakImage(image: image, insertedAt: time, lifetime: lifetime)
                Self.sweepWeak(&state)
            }
            guard Self.fitsEntryLimit(cost, state.configuration) else {
                if let old = state.list.remove(key) { evicted.append(old) }
                return
            }
            state.list.insert(image, forKey: key, cost: cost, now: time, lifetime: lifetime)
            evicted += Self.enforceLimits(&state)
        }
        evicted.removeAll()
    }

    /// Removes every expired entry now (from the weak layer too) and returns how many went.
    /// O(entries); stores already remove expired entries a few at a time, so call this only
    /// when the totals must be exact at once (e.g. from a periodic timer of your own).
    @discardableResult
    public func removeExpired() -> Int {
        let time = now()
        let removed = state.withLock { state in
            Self.sweepExpired(&state, at: time, examining: .max)
        }
        return removed.count
    }

    /// Whether an image is stored under `key` (without making it recently used). Counts the
    /// weak layer and honours the time to live.
    public func containsImage(forKey key: String) -> Bool {
        let time = now()
        return state.withLock { state in
            if let hit = state.list.peek(key) {
                if let lifetime = hit.lifetime ?? state.configuration.entryLifetime, time - hit.insertedAt > lifetime {
                    return false
                }
                return true
            }
            guard state.configuration.shouldUseWeakMemoryCache, let box = state.weak[key], box.image != nil else {
                return false
            }
            if let lifetime = box.lifetime ?? state.configuration.entryLifetime, time - box.insertedAt > lifetime {
                return false
            }
            return true
        }
    }

    /// Removes the image stored under `key` (from the weak layer too).
    public func removeImage(forKey key: String) {
        let removed = state.withLock { state -> Image? in
            state.weak[key] = nil
            return state.list.remove(key)
        }
        _ = removed
    }

    /// Removes every image (from the weak layer too).
    public func removeAll() {
        let old = state.withLock { state -> LRUList<Image> in
            let old = state.list
            state.list.removeAll()
            state.weak.removeAll()
            return old
        }
        _ = old
    }

    /// Evicts least recently used entries until the total cost is at most `cost`.
    /// Evicted images stay findable through the weak layer while they are alive.
    public func trim(toCost cost: Int) {
        let evicted = state.withLock { state -> [Image] in
            var evicted: [Image] = []
            while state.list.totalCost > max(0, cost), let entry = state.list.removeLeastRecentlyUsed() {
                evicted.append(entry.value)
            }
            return evicted
        }
        _ = evicted
    }

    /// Evicts least recently used entries until at most `count` remain.
    public func trim(toCount count: Int) {
        let evicted = state.withLock { state -> [Image] in
            var evicted: [Image] = []
            while state.list.count > max(0, count), let entry = state.list.removeLeastRecentlyUsed() {
                evicted.append(entry.value)
            }
            return evicted
        }
        _ = evicted
    }

    /// The sum of the costs of the entries kept (the weak layer costs nothing).
    public var totalCost: Int { state.withLock { $0.list.totalCost } }

    /// The number of entries kept (not counting images only the weak layer remembers).
    public var count: Int { state.withLock { $0.list.count } }

    /// The keys from most to least recently used.
    public var keysByRecency: [String] { state.withLock { $0.list.keysByRecency } }

    private static func fitsEntryLimit(_ cost: Int, _ configuration: Configuration) -> Bool {
        let limit = Double(max(0, configuration.costLimit)) * min(1, max(0, configuration.maxEntryCostFraction))
        return Double(cost) <= limit
    }

    @discardableResult
    private static func enforceLimits(_ state: inout State) -> [Image] {
        var evicted: [Image] = []
        let costLimit = max(0, state.configuration.costLimit)
        let countLimit = state.configuration.countLimit
        while state.list.totalCost > costLimit || (countLimit > 0 && state.list.count > countLimit),
            let entry = state.list.removeLeastRecentlyUsed()
        {
            evicted.append(entry.value)
        }
        return evicted
    }

    /// Removes expired entries among the next `limit` slots of the list (and forgets them in
    /// the weak layer, so an expired image is not found again). Does nothing, without looking
    /// at any slot, when no entry can expire.
    private static func sweepExpired(_ state: inout State, at time: TimeInterval, examining limit: Int) -> [Image] {
        let defaultLifetime = state.configuration.entryLifetime
        guard defaultLifetime != nil || state.list.entriesWithLifetime > 0 else { return [] }
        var expiredKeys: [String] = []
        let removed = state.list.removeExpired(examining: limit) { node in
            guard let lifetime = node.lifetime ?? defaultLifetime, time - node.insertedAt > lifetime else {
                return false
            }
            expiredKeys.append(node.key)
            return true
        }
        for key in expiredKeys { state.weak[key] = nil }
        return removed
    }

    /// Drops dead weak references once the table has doubled since the last sweep, so the
    /// sweep costs O(1) amortised per store.
    private static func sweepWeak(_ state: inout State) {
        guard state.weak.count >= state.weakSweepThreshold else { return }
        state.weak = state.weak.filter { $0.value.image != nil }
        state.weakSweepThreshold = max(256, state.weak.count * 2)
    }
}
