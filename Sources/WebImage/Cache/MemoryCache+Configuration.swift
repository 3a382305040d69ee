import Foundation
import Synchronization
import WebImageCore

extension MemoryCache {
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
}
