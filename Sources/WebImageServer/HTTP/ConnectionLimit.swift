#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How many client connections the service holds at once (imgproxy's `IMGPROXY_MAX_CLIENTS`).
/// Past it, new connections wait in the listen backlog until one closes, instead of being
/// accepted into a process that has no file descriptor left for them (where the accept loop
/// spins and no new client is ever answered).
public enum ConnectionLimit {
    /// File descriptors kept free of client connections: origin downloads, the source cache,
    /// logs and the runtime's own.
    public static let reservedDescriptors = 256

    /// Raises the soft `RLIMIT_NOFILE` to the hard limit, as servers do at start; returns the
    /// soft limit in force afterwards (`nil` when it cannot be read).
    @discardableResult
    public static func raiseDescriptorLimit() -> Int? {
        var limit = rlimit()
        guard getrlimit(RLIMIT_NOFILE_VALUE, &limit) == 0 else { return nil }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(RLIMIT_NOFILE_VALUE, &raised) == 0 { limit = raised }
        }
        return limit.rlim_cur == rlim_t.max ? Int.max : Int(clamping: limit.rlim_cur)
    }

    /// The connections to allow: `requested`, but never so many that clients could take the
    /// descriptors the service needs (`descriptors` − ``reservedDescriptors``, and at least
    /// half of a small limit).
    public static func effective(requested: Int, descriptors: Int?) -> Int {
        guard let descriptors else { return requested }
        let available = descriptors > 2 * reservedDescriptors ? descriptors - reservedDescriptors : max(1, descriptors / 2)
        return max(1, min(requested, available))
    }

    #if canImport(Glibc)
    private static let RLIMIT_NOFILE_VALUE = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    #else
    private static let RLIMIT_NOFILE_VALUE = RLIMIT_NOFILE
    #endif
}
