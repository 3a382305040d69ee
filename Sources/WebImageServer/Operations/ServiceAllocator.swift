#if canImport(Glibc)
    import Glibc
#endif

/// glibc's malloc settings for a long-running image service (docs/DEPLOYMENT.md, "Memory").
/// `webimage serve` applies them at startup; a program that embeds ``ImageService`` can call
/// ``tune(environment:)`` first thing in `main` (before threads start allocating).
///
/// Three of glibc's defaults cost a service that allocates buffers of many megabytes memory
/// it no longer uses, or time:
/// - **Arenas.** Threads that contend for the allocator get arenas of their own, up to 8 per
///   core, and each keeps what is freed into it. ``arenaLimit`` caps them.
/// - **The sliding mmap threshold.** A block of 128 KiB or more starts out in its own mapping,
///   returned to the system when freed; but each such free raises the threshold to the block's
///   size (up to 32 MiB), so after one 16 MiB source every later block up to 16 MiB is carved
///   from an arena and stays there once freed. ``mmapThreshold`` fixes it at 8 MiB: large
///   sources (a 12 MP PNG), full-size canvases and large results are mapped and given back on
///   free, while an ordinary render's buffers (a 12 MP JPEG source included) are reused from the
///   arenas, where a lower threshold would map and fault them in again on every render.
/// - **The trim threshold.** Fixing the mmap threshold also fixes glibc's 128 KiB trim
///   threshold, which would trim the arenas after every render only for the next one to refill
///   them; ``trimThreshold`` (32 MiB) keeps them.
///
/// Each setting is left alone when the environment already chooses it (`MALLOC_ARENA_MAX`,
/// `MALLOC_MMAP_THRESHOLD_`, `MALLOC_TRIM_THRESHOLD_`, or the matching `glibc.malloc.*`
/// tunable in `GLIBC_TUNABLES`); `MALLOC_ARENA_MAX=0` gives glibc's arena default back. On other
/// C libraries it does nothing.
public enum ServiceAllocator {
    /// The arenas the service allows.
    public static let arenaLimit: Int32 = 2
    /// Blocks of this many bytes or more get a mapping of their own, unmapped when freed.
    public static let mmapThreshold: Int32 = 8 << 20
    /// Free memory at the top of an arena beyond this many bytes is given back.
    public static let trimThreshold: Int32 = 32 << 20

    /// What ``tune(environment:)`` set.
    public struct Settings: Sendable, Equatable {
        /// The arena limit set, or nil when left alone.
        public var arenaLimit: Int32?
        /// The mmap threshold set, or nil.
        public var mmapThreshold: Int32?
        /// The trim threshold set, or nil.
        public var trimThreshold: Int32?

        /// Settings with each value given (nil: left alone).
        public init(arenaLimit: Int32? = nil, mmapThreshold: Int32? = nil, trimThreshold: Int32? = nil) {
            self.arenaLimit = arenaLimit
            self.mmapThreshold = mmapThreshold
            self.trimThreshold = trimThreshold
        }
    }

    /// Applies the service's settings that `environment` does not choose itself.
    /// - Parameter environment: the process environment (`ProcessInfo.processInfo.environment`).
    /// - Returns: what was set.
    @discardableResult
    public static func tune(environment: [String: String]) -> Settings {
        var settings = Settings()
        #if canImport(Glibc)
            // `mallopt` and its `M_*` constants live in <malloc.h>, which the Glibc module does
            // not import: look the function up (glibc's, also when another allocator is preloaded).
            guard let symbol = dlsym(nil, "mallopt") else { return settings }
            let mallopt = unsafeBitCast(symbol, to: (@convention(c) (Int32, Int32) -> Int32).self)
            let tunables = environment["GLIBC_TUNABLES"] ?? ""
            func chosen(_ variable: String, _ tunable: String) -> Bool {
                environment[variable] != nil || tunables.contains("glibc.malloc." + tunable)
            }
            let mArenaMax: Int32 = -8, mMmapThreshold: Int32 = -3, mTrimThreshold: Int32 = -1
            if !chosen("MALLOC_ARENA_MAX", "arena_max"), mallopt(mArenaMax, arenaLimit) == 1 {
                settings.arenaLimit = arenaLimit
            }
            if !chosen("MALLOC_MMAP_THRESHOLD_", "mmap_threshold"), mallopt(mMmapThreshold, mmapThreshold) == 1 {
                settings.mmapThreshold = mmapThreshold
            }
            if !chosen("MALLOC_TRIM_THRESHOLD_", "trim_threshold"), mallopt(mTrimThreshold, trimThreshold) == 1 {
                settings.trimThreshold = trimThreshold
            }
        #endif
        return settings
    }
}
