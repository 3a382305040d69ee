import Dispatch
import Foundation
import Synchronization

/// A directory of encoded image bytes keyed by cache key (SPEC S-1…S-8, X-4).
///
/// - **Location**: `$XDG_CACHE_HOME/swift-web-image/<namespace>` (or `~/.cache/…`) by default,
///   or any directory you give. Re-created if deleted while running.
/// - **File names**: hex SHA-256 of the key plus its short plain URL path extension; no key can
///   leave the folder.
/// - **Atomic, asynchronous writes**: ``store(_:forKey:extendedData:)`` returns at once; a serial
///   I/O queue writes a temporary file and renames it into place, so no reader (in this or any
///   other process, even after a crash) sees a half-written entry. Until the rename, the bytes
///   sit in an in-memory map that reads consult, so a read right after a store sees them.
/// - **Index**: sizes and dates are kept in an index (in memory and in the shared `.index`
///   file), so totals are O(1), trimming removes the oldest entries without a directory walk,
///   and 100 000 entries stay cheap. Two processes may share the directory: changes happen
///   under an `flock`, and each process replays the other's changes from the index file.
/// - **Expiry**: ``DiskCacheConfiguration/maxDiskAge`` against the chosen date and
///   ``DiskCacheConfiguration/maxDiskSize`` (trim to half), on demand with
///   ``removeExpiredData()``, when the cache opens, and periodically.
public final class DiskCache: Sendable {
    /// The directory holding the entries.
    public let directory: URL
    /// The configuration the cache was created with.
    public let configuration: DiskCacheConfiguration

    let engine: DiskCacheStore
    private let queue: DispatchQueue
    private let pending = Mutex(PendingWrites())
    private let now: @Sendable () -> Double

    private struct PendingWrites {
        var generation: UInt64 = 0
        var writes: [String: (generation: UInt64, data: Data?, extendedData: DiskCacheExtendedData?)] = [:]
    }

    /// The default root of disk caches: `$XDG_CACHE_HOME/swift-web-image`, or
    /// `~/.cache/swift-web-image` when the variable is unset or not absolute (Linux); the
    /// user's Caches directory on Apple platforms.
    public static var defaultRootDirectory: URL {
        #if canImport(Darwin)
            if let caches = FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask).first {
                return caches.appendingPathComponent("swift-web-image", isDirectory: true)
            }
        #endif
        let environment = ProcessInfo.processInfo.environment
        let base: URL
        if let xdg = environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") {
            base = URL(fileURLWithPath: xdg, isDirectory: true)
        } else {
            base = FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache", isDirectory: true)
        }
        return base.appendingPathComponent("swift-web-image", isDirectory: true)
    }

    /// The directory of the namespace `namespace` under ``defaultRootDirectory``. Characters
    /// other than letters, digits, `-`, `_` and `.` become `_`, so the name stays one folder.
    public static func directory(forNamespace namespace: String) -> URL {
        var safe = String(namespace.unicodeScalars.map { scalar -> Character in
            let allowed = scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || "-_.".unicodeScalars.contains(scalar))
            return allowed ? Character(scalar) : "_"
        })
        if safe.isEmpty || safe.allSatisfy({ $0 == "." }) { safe = "default" }
        return defaultRootDirectory.appendingPathComponent(safe, isDirectory: true)
    }

    /// A disk cache in the namespace folder `namespace` (default `"default"`) of the default root.
    public convenience init(namespace: String = "default", configuration: DiskCacheConfiguration = DiskCacheConfiguration()) {
        self.init(directory: Self.directory(forNamespace: namespace), configuration: configuration)
    }

    /// A disk cache in `directory` (created when missing).
    public convenience init(directory: URL, configuration: DiskCacheConfiguration = DiskCacheConfiguration()) {
        self.init(directory: directory, configuration: configuration, now: { Date().timeIntervalSince1970 })
    }

    /// A disk cache whose clock is `now` (seconds since 1970; tests move time forward).
    init(directory: URL, configuration: DiskCacheConfiguration, now: @escaping @Sendable () -> Double) {
        self.directory = directory.standardizedFileURL
        self.configuration = configuration
        self.now = now
        self.engine = DiskCacheStore(directory: self.directory.path, configuration: configuration, now: now)
        self.queue = DispatchQueue(label: "webimage.diskcache.io")
        queue.setSpecific(key: Self.queueKey, value: ObjectIdentifier(queue))
        if let interval = configuration.automaticCleaningInterval {
            let engine = self.engine
            queue.async { _ = try? engine.removeExpired() }
            Self.scheduleCleaning(queue: queue, engine: engine, interval: max(1, interval))
        }
    }

    private static let queueKey = DispatchSpecificKey<ObjectIdentifier>()

    /// Runs `work` on the I/O queue after the pending work and waits for it; runs it directly
    /// when already on the queue (e.g. from a store completion), so it never deadlocks.
    private func onQueue<T>(_ work: () throws -> T) rethrows -> T {
        if DispatchQueue.getSpecific(key: Self.queueKey) == ObjectIdentifier(queue) { return try work() }
        return try queue.sync(execute: work)
    }

    private static func scheduleCleaning(queue: DispatchQueue, engine: DiskCacheStore, interval: TimeInterval) {
        // The timer holds the engine weakly: it stops once the cache is gone.
        queue.asyncAfter(deadline: .now() + interval) { [weak engine] in
            guard let engine else { return }
            _ = try? engine.removeExpired()
            scheduleCleaning(queue: queue, engine: engine, interval: interval)
        }
    }

    /// The file name (inside ``directory``) that `key` is stored under.
    public func fileName(for key: String) -> String { DiskCacheFileName.forKey(key) }

    /// The path `key` is (or would be) stored at.
    public func path(for key: String) -> URL { directory.appendingPathComponent(fileName(for: key), isDirectory: false) }

    // MARK: storing

    /// Stores `data` under `key` with optional `extendedData`, asynchronously: returns before
    /// the bytes are on disk, but ``data(for:)`` sees them at once. Write errors are dropped
    /// (a cache is best effort); use ``storeAndWait(_:forKey:extendedData:)`` to see them.
    public func store(_ data: Data, forKey key: String, extendedData: DiskCacheExtendedData? = nil) {
        enqueueWrite(data, forKey: key, extendedData: extendedData) { _ in }
    }

    /// Stores `data` under `key` and returns once it is on disk.
    /// - Throws: ``/WebImageCore/WebImageError/cacheIO(reason:)`` when the write failed.
    public func storeAndWait(_ data: Data, forKey key: String, extendedData: DiskCacheExtendedData? = nil) async throws {
        let error: WebImageError? = await withCheckedContinuation { continuation in
            enqueueWrite(data, forKey: key, extendedData: extendedData) { continuation.resume(returning: $0) }
        }
        if let error { throw error }
    }

    /// Stores `data` under `key` and calls `completion` (on the I/O queue) once it is on disk,
    /// with `nil` or the error.
    public func store(
        _ data: Data, forKey key: String, extendedData: DiskCacheExtendedData? = nil,
        completion: @escaping @Sendable (WebImageError?) -> Void
    ) {
        enqueueWrite(data, forKey: key, extendedData: extendedData, completion: completion)
    }

    private func enqueueWrite(
        _ data: Data, forKey key: String, extendedData: DiskCacheExtendedData?,
        completion: @escaping @Sendable (WebImageError?) -> Void
    ) {
        let name = fileName(for: key)
        let generation = pending.withLock { pending in
            pending.generation &+= 1
            pending.writes[name] = (pending.generation, data, extendedData)
            return pending.generation
        }
        let engine = self.engine
        let pending = self
        let date = now()
        queue.async {
            var failure: WebImageError?
            do {
                try engine.write(data, name: name, extendedData: extendedData, date: date)
            } catch {
                failure = (error as? WebImageError) ?? .cacheIO(reason: "\(error)")
            }
            pending.finishPending(name: name, generation: generation)
            completion(failure)
        }
    }

    private func finishPending(name: String, generation: UInt64) {
        pending.withLock { pending in
            if pending.writes[name]?.generation == generation { pending.writes[name] = nil }
        }
    }

    /// The pending (not yet on disk) state of `name`: `.some(data)` for a pending write,
    /// `.some(nil)` for a pending removal, `nil` when nothing is pending.
    private func pendingData(_ name: String) -> Data?? {
        pending.withLock { pending in pending.writes[name].map { $0.data } }
    }

    // MARK: reading

    /// The bytes stored under `key` (also from the lookup directories), or `nil`.
    /// Synchronous: call it off latency-sensitive threads. A file that vanished is a miss and
    /// is removed from the index.
    public func data(for key: String) -> Data? {
        let name = fileName(for: key)
        if let pending = pendingData(name) { return pending }
        return try? engine.read(name: name)
    }

    /// Whether bytes are stored under `key` (also in the lookup directories).
    public func contains(_ key: String) -> Bool {
        let name = fileName(for: key)
        if let pending = pendingData(name) { return pending != nil }
        return engine.exists(name: name)
    }

    /// The extended data stored with `key`, if any.
    public func extendedData(for key: String) -> DiskCacheExtendedData? {
        let name = fileName(for: key)
        if let write = pending.withLock({ $0.writes[name] }) {
            return write.data == nil ? nil : write.extendedData
        }
        return engine.extendedData(name: name)
    }

    /// Replaces the extended data of the entry under `key` (`nil` removes it). Returns `false`
    /// when there is no such entry. Waits for pending writes.
    @discardableResult
    public func setExtendedData(_ extendedData: DiskCacheExtendedData?, for key: String) -> Bool {
        let name = fileName(for: key)
        let engine = self.engine
        return onQueue { (try? engine.setExtendedData(extendedData, name: name)) ?? false }
    }

    // MARK: removing

    /// Removes the entry under `key`. Reads miss at once; the file goes on the I/O queue.
    public func remove(_ key: String) {
        let name = fileName(for: key)
        let generation = pending.withLock { pending in
            pending.generation &+= 1
            pending.writes[name] = (pending.generation, nil, nil)
            return pending.generation
        }
        let engine = self.engine
        queue.async {
            try? engine.remove(name: name)
            self.finishPending(name: name, generation: generation)
        }
    }

    /// Removes every entry. Waits for pending writes, then deletes.
    public func removeAll() {
        let engine = self.engine
        onQueue { try? engine.removeAll() }
        pending.withLock { $0.writes.removeAll() }
    }

    /// Removes entries older than ``DiskCacheConfiguration/maxDiskAge``, then, when the total
    /// exceeds ``DiskCacheConfiguration/maxDiskSize``, the oldest until it is at most half of
    /// it. Returns how many entries were removed. Waits for pending writes.
    @discardableResult
    public func removeExpiredData() -> Int {
        removeExpiredData(maxAge: nil, maxSize: nil)
    }

    /// ``removeExpiredData()`` with other limits than the configured ones.
    @discardableResult
    public func removeExpiredData(maxAge: TimeInterval?, maxSize: Int?) -> Int {
        let engine = self.engine
        return onQueue { (try? engine.removeExpired(maxAge: maxAge, maxSize: maxSize)) ?? 0 }
    }

    // MARK: totals and maintenance

    /// Total bytes of the entries (after pending writes). O(1) plus replaying other processes'
    /// recent changes.
    public var totalSize: Int {
        let engine = self.engine
        return onQueue { (try? engine.totals().size) ?? 0 }
    }

    /// Number of entries (after pending writes).
    public var totalCount: Int {
        let engine = self.engine
        return onQueue { (try? engine.totals().count) ?? 0 }
    }

    /// Count, bytes and the oldest and newest entry dates (after pending writes).
    public func statistics() throws -> DiskCacheStatistics {
        let engine = self.engine
        return try onQueue { try engine.statistics() }
    }

    /// Blocks until every pending write and removal is on disk.
    public func flush() {
        onQueue {}
    }

    /// Returns once every pending write and removal is on disk.
    public func waitForPendingWrites() async {
        await withCheckedContinuation { continuation in queue.async { continuation.resume() } }
    }

    /// Rebuilds the index from the files (for example after files were changed by hand).
    public func rebuildIndex() throws {
        let engine = self.engine
        try onQueue { try engine.rebuildIndex() }
    }

    /// Moves the entries of an older cache directory into this one (existing entries win) and
    /// removes the old directory when nothing else is in it. Returns how many entries moved.
    @discardableResult
    public func migrate(from oldDirectory: URL) throws -> Int {
        let engine = self.engine
        let path = oldDirectory.standardizedFileURL.path
        return try onQueue { try engine.migrate(from: path) }
    }
}
