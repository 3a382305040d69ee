#if canImport(Glibc)
    import Glibc
#endif

/// glibc's malloc arena limit for `webimage serve` (issue #15; docs/DEPLOYMENT.md, "Memory").
///
/// glibc gives threads that contend for the allocator arenas of their own, up to 8 per core;
/// each keeps the memory freed into it, so a service whose renders allocate tens of megabytes on
/// changing threads holds several renders' worth of freed memory per arena. The service caps
/// them at ``serviceLimit`` at startup, unless `MALLOC_ARENA_MAX` or `GLIBC_TUNABLES` already
/// chooses (`MALLOC_ARENA_MAX=0` gives glibc's default back).
enum MallocArenas {
    /// The arenas `webimage serve` allows.
    static let serviceLimit: Int32 = 2

    /// Sets the limit unless the environment chooses; returns the limit set, or nil.
    @discardableResult
    static func limitForService(environment: [String: String]) -> Int32? {
        #if canImport(Glibc)
            if environment["MALLOC_ARENA_MAX"] != nil { return nil }
            if let tunables = environment["GLIBC_TUNABLES"], tunables.contains("glibc.malloc.arena_max") { return nil }
            // `mallopt` and `M_ARENA_MAX` live in <malloc.h>, which the Glibc module does not
            // import: look the function up (glibc's, also when another allocator is preloaded).
            guard let symbol = dlsym(nil, "mallopt") else { return nil }
            let mallopt = unsafeBitCast(symbol, to: (@convention(c) (Int32, Int32) -> Int32).self)
            let arenaMax: Int32 = -8  // M_ARENA_MAX
            return mallopt(arenaMax, serviceLimit) == 1 ? serviceLimit : nil
        #else
            return nil
        #endif
    }
}
