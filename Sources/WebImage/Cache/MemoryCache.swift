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
/// - Time to live (``Configuration/entryLifetime``): entries older than it are misses.
public final class MemoryCache: Sendable {
    /// Limits and behaviour of a ``MemoryCache``.
    public struct Configuration: Sendable {
        /// Maximum total ``/WebImageCore/Image/cost`` (bytes) kept. Default ``defaultCostLimit``.
        public var costLimit: Int
        /// Maximum number of entries; `0` means no count limit (default).
        public var countLimit: Int
        /// An entry whose cost exceeds this fraction of ``costLimit`` is not kept (default 0.1).
        public var maxEntryCostFraction: Double
        /// Entries older than this many seconds are misses; `nil` (default) keeps them until
        /// evicted.
        public var entryLifetime: TimeInterval?
        /// Keep weak references to stored images so that evicted images still alive elsewhere
        /// are found again (default `true`).
        public var shouldUseWeakMemoryCache: Bool

        /// A configuration; each parameter defaults to the value documented on its property.
        public init(
            costLimit: Int = MemoryCache.defaultCostLimit,
            countLimit: Int = 0,
            maxEntryCostFraction: Double = 0.1,
            entryLifetime: TimeInterval? = nil,
            shouldUseWeakMemoryCache: Bool = true
        ) {
            self.costLimit = costLimit
            self.countLimit = countLimit
            self.maxEntryCostFraction = maxEntryCostFraction
            self.entryLifetime = entryLifetime
            self.shouldUseWeakMemoryCache = shouldUseWeakMemoryCache
        }
    }

    /// The default cost limit: a quarter of physical memory, at most 512 MiB (at least 16 MiB).
    ///
    /// Linux sends no memory-warning signal, so the cache must stay small enough on its own: a
    /// quarter of RAM lets a small container keep a useful working set, and the cap keeps a big
    /// server from holding gigabytes of decoded pixels.
    public static var defaultCostLimit: Int {
        defaultCostLimit(physicalMemory: ProcessInfo.processInfo.physicalMemory)
    }

    /// The default cost limit for a machine with `physicalMemory` bytes of RAM.
    public static func defaultCostLimit(physicalMemory: UInt64) -> Int {
        let cap: UInt64 = 512 * 1024 * 1024
        let floor: UInt64 = 16 * 1024 * 1024
        let quarter = physicalMemory / 4
        return Int(min(cap, max(floor, quarter)))
    }

    private struct WeakImage {
        weak var image: Image?
    }

    private struct State {
        var configuration: Configuration
        var list = LRUList<Image>()
        var weak: [String: WeakImage] = [:]
        var weakSweepThreshold = 256
    }

    private let state: Mutex<State>
    private let now: @Sendable () -> TimeInterval

    /// A memory cache with `configuration`.
    public convenience init(configuration: Configuration = Configuration()) {
        self.init(configuration: configuration, now: { ProcessInfo.processInfo.systemUptime })
    }

    /// A memory cache whose clock is `now` (seconds; tests use a fake clock for the TTL).
    init(configuration: Configuration, now: @escaping @Sendable () -> TimeInterval) {
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
                if let lifetime = state.configuration.entryLifetime, now() - hit.insertedAt > lifetime {
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
            // Found again through the weak layer: put it back (its age restarts).
            if Self.fitsEntryLimit(image.cost, state.configuration) {
                state.list.insert(image, forKey: key, cost: image.cost, now: now())
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
    public func setImage(_ image: Image, forKey key: String, cost: Int? = nil) {
        let cost = max(0, cost ?? image.cost)
        let time = now()
        // Images evicted here are released after the lock is left.
        var evicted: [Image] = []
        state.withLock { state in
            if state.configuration.shouldUseWeakMemoryCache {
                state.weak[key] = WeakImage(image: image)
                Self.sweepWeak(&state)
            }
            guard Self.fitsEntryLimit(cost, state.configuration) else {
                if let old = state.list.remove(key) { evicted.append(old) }
                return
            }
            state.list.insert(image, forKey: key, cost: cost, now: time)
            evicted = Self.enforceLimits(&state)
        }
        evicted.removeAll()
    }

    /// Whether an image is stored under `key` (without making it recently used). Counts the
    /// weak layer and honours the time to live.
    public func containsImage(forKey key: String) -> Bool {
        let time = now()
        return state.withLock { state in
            if let hit = state.list.peek(key) {
                if let lifetime = state.configuration.entryLifetime, time - hit.insertedAt > lifetime { return false }
                return true
            }
            return state.configuration.shouldUseWeakMemoryCache && state.weak[key]?.image != nil
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

    /// Drops dead weak references once the table has doubled since the last sweep, so the
    /// sweep costs O(1) amortised per store.
    private static func sweepWeak(_ state: inout State) {
        guard state.weak.count >= state.weakSweepThreshold else { return }
        state.weak = state.weak.filter { $0.value.image != nil }
        state.weakSweepThreshold = max(256, state.weak.count * 2)
    }
}
