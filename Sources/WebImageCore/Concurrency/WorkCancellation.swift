#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// A flag that asks CPU-bound work on the ``ProcessingPool`` to stop early.
///
/// ``ProcessingPool/run(_:)`` gives every job one; cancelling the task that awaits the job sets
/// it. Long loops (resampling, blurring, sharpening, filters) read
/// ``WorkCancellation/current`` every row or so and, once it is set, stop and return whatever
/// they have; the caller then checks ``checkCurrent()`` between its steps and throws
/// ``WebImageError/cancelled``, so the pool thread is free again within a row's time instead of
/// finishing work nobody waits for.
public final class WorkCancellation: Sendable {
    private let flag = Atomic<Bool>(false)

    /// A flag that is not set.
    public init() {}

    /// Whether stopping was asked for.
    public var isCancelled: Bool { flag.load(ordering: .relaxed) }

    /// Asks the work to stop.
    public func cancel() { flag.store(true, ordering: .relaxed) }

    /// The flag of the pool job running on this thread; `nil` outside pool jobs.
    public static var current: WorkCancellation? {
        guard let raw = pthread_getspecific(key) else { return nil }
        return Unmanaged<WorkCancellation>.fromOpaque(raw).takeUnretainedValue()
    }

    /// Whether the pool job running on this thread was asked to stop (`false` outside jobs).
    @inline(__always)
    public static var isCurrentCancelled: Bool { current?.isCancelled ?? false }

    /// Throws ``WebImageError/cancelled`` when the pool job running on this thread was asked to stop.
    public static func checkCurrent() throws(WebImageError) {
        if isCurrentCancelled { throw .cancelled }
    }

    /// Runs `body` with `self` as this thread's ``current`` flag (restoring the previous one).
    public func installed<T>(_ body: () throws -> T) rethrows -> T {
        let previous = pthread_getspecific(Self.key)
        pthread_setspecific(Self.key, Unmanaged.passUnretained(self).toOpaque())
        defer { pthread_setspecific(Self.key, previous) }
        return try withExtendedLifetime(self) { try body() }
    }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()
}
