import Synchronization
import WebImageCore

/// The transforms built so far, one per distinct profile (G-4): building one costs
/// milliseconds, applying it to a thumbnail microseconds. Bounded (least recently used out)
/// and thread-safe: the map is guarded by a `Mutex`; transforms are built outside the lock (two
/// threads meeting the same new profile may both build it; one result is kept).
final class ColorTransformCache: Sendable {
    /// The shared cache every decoder uses.
    static let shared = ColorTransformCache(capacity: 16)

    private struct State {
        var entries: [ColorProfile: (transform: ColorTransform, lastUse: UInt64)] = [:]
        var clock: UInt64 = 0
    }

    private let capacity: Int
    private let state = Mutex(State())

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// The transform for `profile`, built on first use.
    func transform(for profile: ColorProfile) -> ColorTransform {
        let cached = state.withLock { state -> ColorTransform? in
            state.clock += 1
            guard var entry = state.entries[profile] else { return nil }
            entry.lastUse = state.clock
            state.entries[profile] = entry
            return entry.transform
        }
        if let cached { return cached }
        let built = ColorTransform.make(for: profile)
        state.withLock { state in
            state.clock += 1
            if state.entries[profile] == nil, state.entries.count >= capacity,
                let oldest = state.entries.min(by: { $0.value.lastUse < $1.value.lastUse })?.key
            {
                state.entries[oldest] = nil
            }
            state.entries[profile] = (built, state.clock)
        }
        return built
    }

    /// How many transforms are cached (for tests).
    var count: Int { state.withLock { $0.entries.count } }

    /// Forgets every transform: the fuzz targets judge each input on its own, so nothing an
    /// input built may outlive it (a cached transform would read as that input's leak).
    func removeAll() {
        state.withLock { $0.entries.removeAll() }
    }
}
