/// What happened at the result store, as counted in `webimage_result_store_<event>_total`.
enum ResultStoreEvent: String, CaseIterable, Sendable {
    /// A lookup found a whole, unexpired entry.
    case hits
    /// A lookup found none (or an expired, corrupt, oversized or misplaced one).
    case misses
    /// A lookup found an entry written for another key (a copy or restore that put it in the
    /// wrong place); also counted as a miss.
    case keyMismatches = "key_mismatches"
    /// A lookup or write failed or timed out; the request went on without the store.
    case errors
    /// A render was written.
    case writes
    /// A render was not written because the write queue was full.
    case dropped
}
