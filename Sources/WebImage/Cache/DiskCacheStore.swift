import Foundation
import Synchronization
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The synchronous, thread-safe engine under ``DiskCache``: entry files, the index, the lock.
///
/// Every operation that changes entries (rename into place, unlink) runs while holding the
/// mutex **and** the directory's `flock`, after bringing the index up to date with the shared
/// index file, and records its change there before releasing the lock. So the index of every
/// process that shares the directory stays consistent with the files. Reads of entry files
/// need no lock: entries only ever appear by atomic `rename`.
final class DiskCacheStore: Sendable {
    let directory: String
    let configuration: DiskCacheConfiguration
    let usesSideRecords: Bool
    /// The clock entries are dated by, in seconds.
    let now: @Sendable () -> Double
    private let state: Mutex<State>
    /// Numbers this process's temporary files (written, then renamed into place).
    let tempCounter = Atomic<UInt64>(0)

    static let xattrName = "user.webimage.extended"

    private struct State {
        var index = DiskCacheIndex()
        let journal: DiskCacheJournal
        let lock: DiskCacheLock
    }

    init(directory: String, configuration: DiskCacheConfiguration, now: @escaping @Sendable () -> Double) {
        self.directory = directory
        self.configuration = configuration
        self.now = now
        try? DiskCacheFileSystem.createDirectory(directory)
        self.usesSideRecords = configuration.forceSideRecords || !DiskCacheFileSystem.supportsXattr(in: directory)
        self.state = Mutex(
            State(
                journal: DiskCacheJournal(directory: directory, expireDate: configuration.expireDate),
                lock: DiskCacheLock(directory: directory)))
        removeAbandonedTemporaryFiles()
    }

    func path(forName name: String) -> String { directory + "/" + name }
    func sideRecordPath(forName name: String) -> String { directory + "/.meta-" + name }

    // MARK: locked index access

    /// Runs `body` with the index up to date, holding the mutex and the directory lock;
    /// appends the records `body` produced to the shared index file.
    func withIndex<T: Sendable>(_ body: (inout DiskCacheIndex, inout [UInt8]) throws -> T) throws -> T {
        try state.withLock { state throws -> T in
            let previousHolderDied = try state.lock.lock()
            defer { state.lock.unlock() }
            if state.journal.sync(into: &state.index) == .needsRebuild || previousHolderDied {
                try rebuild(&state)
            }
            var records: [UInt8] = []
            let result = try body(&state.index, &records)
            try state.journal.append(records)
            if state.journal.needsCompaction(liveEntries: state.index.count) {
                try state.journal.rewrite(from: state.index)
            }
            return result
        }
    }

    /// Rebuilds the index from the files in the directory and rewrites the index file.
    private func rebuild(_ state: inout State) throws {
        state.index.removeAll()
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        for name in names where DiskCacheFileName.isEntryName(name) {
            let full = path(forName: name)
            guard let info = DiskCacheFileSystem.status(full), (info.st_mode & S_IFMT) == S_IFREG else { continue }
            let date = DiskCacheFileSystem.date(configuration.expireDate, of: info, path: full)
            state.index.upsert(name, size: Int(info.st_size), date: date)
        }
        try state.journal.rewrite(from: state.index)
    }

    /// Rebuilds the index from the files (after the files were changed from outside the cache).
    func rebuildIndex() throws {
        try state.withLock { state throws in
            _ = try state.lock.lock()
            defer { state.lock.unlock() }
            try rebuild(&state)
        }
    }

    private var nowMilliseconds: Int64 { Self.milliseconds(now()) }

    /// `seconds` as whole milliseconds, clamped so that odd clocks never trap.
    static func milliseconds(_ seconds: Double) -> Int64 {
        let value = (seconds * 1000).rounded()
        guard value.isFinite else { return 0 }
        return Int64(max(-1e15, min(1e15, value)))
    }

    // MARK: writing

    /// Writes `data` as entry `name` atomically: a temporary file in the directory, then a
    /// rename under the lock. Trims to half of `maxDiskSize` when the total exceeds it.
    /// - Parameter date: the entry's date (seconds since 1970); default now.
    func write(_ data: Data, name: String, extendedData: DiskCacheExtendedData?, date storedAt: Double? = nil) throws {
        let temp = directory + "/.tmp-\(getpid())-\(tempCounter.wrappingAdd(1, ordering: .relaxed).newValue)"
        let encoded = try extendedData.map { try JSONEncoder().encode($0) }
        let xattr = usesSideRecords ? nil : encoded.map { (Self.xattrName, $0) }
        let seconds = storedAt ?? now()
        var result = try DiskCacheFileSystem.writeNewFile(data, at: temp, date: seconds, xattr: xattr)
        if result.errnoOnOpen == ENOENT {
            try DiskCacheFileSystem.createDirectory(directory)
            result = try DiskCacheFileSystem.writeNewFile(data, at: temp, date: seconds, xattr: xattr)
        }
        guard result.errnoOnOpen == 0 else {
            throw WebImageError.cacheIO(reason: "create \(temp): \(DiskCacheFileSystem.errorText(result.errnoOnOpen))")
        }
        let needsSideRecord = encoded != nil && (usesSideRecords || !result.xattrStored)
        let sideTemp = temp + ".meta"
        if needsSideRecord, let encoded {
            _ = try DiskCacheFileSystem.writeNewFile(encoded, at: sideTemp, date: seconds, xattr: nil)
        }
        let size = data.count
        let date = Self.milliseconds(seconds)
        do {
            try withIndex { index, records in
                let final = path(forName: name)
                guard rename(temp, final) == 0 else {
                    throw WebImageError.cacheIO(reason: "rename to \(final): \(DiskCacheFileSystem.errorText())")
                }
                if needsSideRecord {
                    rename(sideTemp, sideRecordPath(forName: name))
                } else if usesSideRecords || encoded == nil {
                    unlink(sideRecordPath(forName: name))
                }
                index.upsert(name, size: size, date: date)
                DiskCacheJournal.appendUpsert(name: name, size: size, date: date, to: &records)
                trimIfOverLimit(&index, &records)
            }
        } catch {
            unlink(temp)
            unlink(sideTemp)
            throw error
        }
    }

    private func trimIfOverLimit(_ index: inout DiskCacheIndex, _ records: inout [UInt8]) {
        let limit = configuration.maxDiskSize
        guard limit > 0, index.totalSize > limit else { return }
        while index.totalSize > limit / 2, let (name, _) = index.popOldest() {
            removeFiles(name)
            DiskCacheJournal.appendRemoval(name: name, to: &records)
        }
    }

    private func removeFiles(_ name: String) {
        unlink(path(forName: name))
        unlink(sideRecordPath(forName: name))
    }

    // MARK: reading

    /// The bytes of entry `name` from the cache directory or a lookup directory; `nil` when
    /// absent. An indexed entry whose file is gone is removed from the index.
    func read(name: String) throws -> Data? {
        let full = path(forName: name)
        if let data = try DiskCacheFileSystem.readFile(full) {
            if configuration.expireDate == .accessDate {
                let seconds = now()
                DiskCacheFileSystem.touchAccess(full, date: seconds)
                let date = Self.milliseconds(seconds)
                try? withIndex { index, records in
                    index.upsert(name, size: data.count, date: date)
                    DiskCacheJournal.appendUpsert(name: name, size: data.count, date: date, to: &records)
                }
            }
            return data
        }
        forgetIfMissing(name)
        for lookup in configuration.additionalLookupDirectories {
            if let data = try? DiskCacheFileSystem.readFile(lookup.path + "/" + name) { return data }
        }
        return nil
    }

    /// Whether entry `name` exists (in the directory or a lookup directory).
    func exists(name: String) -> Bool {
        if DiskCacheFileSystem.status(path(forName: name)) != nil { return true }
        forgetIfMissing(name)
        return configuration.additionalLookupDirectories.contains {
            DiskCacheFileSystem.status($0.path + "/" + name) != nil
        }
    }

    /// Removes `name` from the index when its file is gone (the index is fixed, not trusted).
    private func forgetIfMissing(_ name: String) {
        let indexed = state.withLock { $0.index.entries[name] != nil }
        guard indexed else { return }
        try? withIndex { index, records in
            guard DiskCacheFileSystem.status(path(forName: name)) == nil, index.remove(name) else { return }
            DiskCacheJournal.appendRemoval(name: name, to: &records)
        }
    }

    // MARK: removing

    /// Removes entry `name`.
    func remove(name: String) throws {
        try withIndex { index, records in
            removeFiles(name)
            index.remove(name)
            DiskCacheJournal.appendRemoval(name: name, to: &records)
        }
    }

    /// Removes every entry the index lists (after bringing it up to date with the index file);
    /// other files in the directory are left alone, and so are files of other processes'
    /// writes in flight.
    func removeAll() throws {
        try state.withLock { state throws in
            let previousHolderDied = try state.lock.lock()
            defer { state.lock.unlock() }
            if state.journal.sync(into: &state.index) == .needsRebuild || previousHolderDied {
                try rebuild(&state)
            }
            for name in state.index.entries.keys {
                removeFiles(name)
            }
            state.index.removeAll()
            try state.journal.rewrite(from: state.index)
        }
    }

    /// Removes entries older than `maxDiskAge`, then the oldest until the total is at most half
    /// of `maxDiskSize` when it exceeds it. Returns how many entries were removed. The cost
    /// grows with the number removed, not with the number kept.
    @discardableResult
    func removeExpired(maxAge: TimeInterval? = nil, maxSize: Int? = nil) throws -> Int {
        let age = maxAge ?? configuration.maxDiskAge
        let limit = maxSize ?? configuration.maxDiskSize
        // Ages too large for the clock (or not numbers) expire nothing instead of trapping.
        let ageMilliseconds = age * 1000
        let expires = age >= 0 && ageMilliseconds.isFinite && ageMilliseconds < 1e15
        let cutoff = expires ? nowMilliseconds - Int64(ageMilliseconds) : Int64.min
        return try withIndex { index, records in
            var removed = 0
            if expires {
                while let (name, date) = index.oldest(), date < cutoff {
                    _ = index.popOldest()
                    removeFiles(name)
                    DiskCacheJournal.appendRemoval(name: name, to: &records)
                    removed += 1
                }
            }
            if limit > 0, index.totalSize > limit {
                while index.totalSize > limit / 2, let (name, _) = index.popOldest() {
                    removeFiles(name)
                    DiskCacheJournal.appendRemoval(name: name, to: &records)
                    removed += 1
                }
            }
            return removed
        }
    }

    // MARK: totals

    /// Total bytes and number of entries.
    func totals() throws -> (size: Int, count: Int) {
        try withIndex { index, _ in (index.totalSize, index.count) }
    }

    /// Count, bytes, oldest and newest date.
    func statistics() throws -> DiskCacheStatistics {
        try withIndex { index, _ in
            let oldest = index.oldest().map { Date(timeIntervalSince1970: Double($0.date) / 1000) }
            let newest = index.newestDate.map { Date(timeIntervalSince1970: Double($0) / 1000) }
            return DiskCacheStatistics(count: index.count, bytes: index.totalSize, oldest: oldest, newest: newest)
        }
    }

    /// Entry name → size as the index has it (after bringing it up to date); for tests.
    func indexSnapshot() throws -> [String: Int] {
        try withIndex { index, _ in index.entries.mapValues(\.size) }
    }

    /// Whether the index lists `name` (after bringing it up to date).
    func isIndexed(name: String) throws -> Bool {
        try withIndex { index, _ in index.entries[name] != nil }
    }
}
