import Foundation
import Testing
@testable import WebImage

@Suite("Disk cache (S-1…S-8)")
struct CacheDiskTests {
    @Test("Given a stored entry, when read right after store, then the bytes are seen before and after the write")
    func readYourWrites() async throws {
        let dir = CacheFixtures.temporaryDirectory()
        defer { CacheFixtures.remove(dir) }
        let cache = DiskCache(directory: dir, configuration: CacheFixtures.diskConfiguration())
        let data = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0) })
        cache.store(data, forKey: "https://example.com/a.png")
        #expect(cache.data(for: "https://example.com/a.png") == data)
        #expect(cache.contains("https://example.com/a.png"))
        cache.flush()
        #expect(cache.data(for: "https://example.com/a.png") == data)
        #expect(cache.path(for: "https://example.com/a.png").pathExtension == "png")
        #expect(FileManager.default.fileExists(atPath: cache.path(for: "https://example.com/a.png").path))
        #expect(cache.totalCount == 1)
        #expect(cache.totalSize == data.count)
        cache.remove("https://example.com/a.png")
        #expect(cache.data(for: "https://example.com/a.png") == nil)
        cache.flush()
        #expect(cache.totalCount == 0)
        #expect(CacheFixtures.entryFiles(in: dir).isEmpty)
        #expect(!((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []).contains { $0.hasPrefix(".tmp-") })
    }

    @Test("Given a store completion, when it asks for totals on the I/O queue, then it does not deadlock")
    func completionReentrancy() async {
        let dir = CacheFixtures.temporaryDirectory()
        defer { CacheFixtures.remove(dir) }
        let cache = DiskCache(directory: dir, configuration: CacheFixtures.diskConfiguration())
        let count = await withCheckedContinuation { continuation in
            cache.store(Data([1]), forKey: "k") { _ in continuation.resume(returning: cache.totalCount) }
        }
        #expect(count == 1)
    }

    @Test("Given the default location, then it is under XDG_CACHE_HOME or ~/.cache with a namespace folder")
    func defaultLocation() {
        let root = DiskCache.defaultRootDirectory
        #expect(root.lastPathComponent == "swift-web-image")
        if let xdg = ProcessInfo.processInfo.environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") {
            #expect(root.path.hasPrefix(xdg))
        } else {
            #expect(root.deletingLastPathComponent().lastPathComponent == ".cache")
        }
        #expect(DiskCache.directory(forNamespace: "default").lastPathComponent == "default")
        #expect(DiskCache.directory(forNamespace: "../evil").lastPathComponent == ".._evil")
        #expect(DiskCache.directory(forNamespace: "..").lastPathComponent == "default")
    }

    @Test(
        "Given hostile or odd keys, when stored, then files stay inside the folder and read back",
        arguments: [
            "../../../etc/passwd", "/absolute/path.png", "a/../../b.jpg", String(repeating: "k", count: 100_000),
            "https://x.org/ünïcødé/😀.webp?q=1#f", "with\0nul", "", ".hidden", "x.toolongextension",
            "https://x.org/a.p/ng", "name.PNG", "a b/c d.jp-g",
        ])
    func hostileKeys(key: String) throws {
        let dir = CacheFixtures.temporaryDirectory()
        defer { CacheFixtures.remove(dir) }
        let cache = DiskCache(directory: dir, configuration: CacheFixtures.diskConfiguration())
        let data = Data(key.utf8.prefix(64)) + Data([1, 2, 3])
        cache.store(data, forKey: key)
        cache.flush()
        let name = cache.fileName(for: key)
        #expect(!name.contains("/"))
        #expect(name.count <= 73)
        #expect(DiskCacheFileName.isEntryName(name))
        #expect(cache.path(for: key).deletingLastPathComponent().standardizedFileURL.path == dir.standardizedFileURL.path)
        #expect(CacheFixtures.entryFiles(in: dir) == [name])
        #expect(cache.data(for: key) == data)
    }

    @Test("Given keys, then the extension is kept only when short and alphanumeric")
    func fileNameExtension() {
        #expect(DiskCacheFileName.pathExtension(of: "https://x.org/a/b.png?v=1.jpg") == "png")
        #expect(DiskCacheFileName.pathExtension(of: "https://x.org/a/b") == nil)
        #expect(DiskCacheFileName.pathExtension(of: "b.toolongext") == nil)
        #expect(DiskCacheFileName.pathExtension(of: "b.jp-g") == nil)
        #expect(DiskCacheFileName.pathExtension(of: ".png") == nil)
        #expect(DiskCacheFileName.pathExtension(of: "a/b.WebP") == "WebP")
        #expect(DiskCacheFileName.forKey("a").count == 64)
        #expect(DiskCacheFileName.forKey("a") != DiskCacheFileName.forKey("b"))
    }

    @Test("Given the cache directory deleted while running, when storing again, then it is re-created")
    func deletedDirectory() throws {
        let dir = CacheFixtures.temporaryDirectory()
        defer { CacheFixtures.remove(dir) }
        let cache = DiskCache(directory: dir, configuration: CacheFixtures.diskConfiguration())
        cache.store(Data([1]), forKey: "one")
        cache.flush()
        try FileManager.default.removeItem(at: dir)
        #expect(cache.data(for: "one") == nil)
        #expect(cache.totalCount == 0)
        cache.store(Data([2, 2]), forKey: "two")
        cache.flush()
        #expect(FileManager.default.fileExists(atPath: dir.path))
        #expect(cache.data(for: "two") == Data([2, 2]))
        #expect(cache.totalCount == 1)
        #expect(cache.totalSize == 2)
    }

    @Test("Given many tasks storing and reading one key, then every read is one whole version")
    func concurrentOneKey() async {
        let dir = CacheFixtures.temporaryDirectory()
        defer { CacheFixtures.remove(dir) }
        let cache = DiskCache(directory: dir, configuration: CacheFixtures.diskConfiguration())
        let versions = (0..<8).map { v in Data(repeating: UInt8(v), count: 20_000 + v * 1000) }
        let torn = await withTaskGroup(of: Int.self) { group in
            for t in 0..<8 {
                group.addTask {
                    var bad = 0
                    for i in 0..<40 {
                        if i % 2 == 0 { cache.store(versions[(t + i) % 8], forKey: "shared") }
                        if let data = cache.data(for: "shared"), !versions.contains(data) { bad += 1 }
                    }
                    return bad
                }
            }
            return await group.reduce(0, +)
        }
        cache.flush()
        #expect(torn == 0)
        #expect(cache.totalCount == 1)
        if let final = cache.data(for: "shared") { #expect(cache.totalSize == final.count) }
        #expect(CacheFixtures.entryFiles(in: dir).count == 1)
    }

    @Test(
        "Given extended data, when stored and set, then it round-trips (xattr and side records)",
        arguments: [false, true])
    func extendedData(sideRecords: Bool) throws {
        let dir = CacheFixtures.temporaryDirectory()
        defer { CacheFixtures.remove(dir) }
        let cache = DiskCache(directory: dir, configuration: CacheFixtures.diskConfiguration(sideRecords: sideRecords))
        let ext = DiskCacheExtendedData(
            originalURL: "https://x.org/a.png", contentType: "image/png", eTag: "\"abc\"",
            lastModified: "Wed, 21 Oct 2015 07:28:00 GMT", userData: Data([0, 1, 2, 255]))
        cache.store(Data([9, 9]), forKey: "k", extendedData: ext)
        #expect(cache.extendedData(for: "k") == ext)
        cache.flush()
        #expect(cache.extendedData(for: "k") == ext)
        let reopened = DiskCache(directory: dir, configuration: CacheFixtures.diskConfiguration(sideRecords: sideRecords))
        #expect(reopened.extendedData(for: "k") == ext)
        var changed = ext
        changed.eTag = "\"def\""
        #expect(reopened.setExtendedData(changed, for: "k"))
        #expect(reopened.extendedData(for: "k") == changed)
        #expect(!reopened.setExtendedData(changed, for: "missing"))
        // A new store without extended data drops the old record.
        reopened.store(Data([1]), forKey: "k")
        reopened.flush()
        #expect(reopened.extendedData(for: "k") == nil)
        reopened.remove("k")
        reopened.flush()
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []).allSatisfy { !$0.hasPrefix(".meta-") })
    }

    @Test("Given entries dated in the past, when expired by modification date, then only old entries go")
    func expiryByModificationDate() throws {
        let dir = CacheFixtures.temporaryDirectory()
        defer { CacheFixtures.remove(dir) }
        let cache = DiskCache(directory: dir, configuration: CacheFixtures.diskConfiguration(maxAge: 3600))
        cache.store(Data([1]), forKey: "old")
        cache.store(Data([2]), forKey: "new")
        cache.flush()
        CacheFixtures.setFileDates(cache.path(for: "old"), to: Date(timeIntervalSinceNow: -7200))
        try cache.rebuildIndex()
        #expect(cache.removeExpiredData() == 1)
        #expect(!cache.contains("old"))
        #expect(cache.contains("new"))
        #expect(cache.totalCount == 1)
    }

    @Test("Given the file dates changed outside the cache, when the index is rebuilt on open, then expiry sees them")
    func expiryAfterReopen() throws {
        let dir = CacheFixtures.temporaryDirectory()
        defer { CacheFixtures.remove(dir) }
        let cache = DiskCache(directory: dir, configuration: CacheFixtures.diskConfiguration(maxAge: 3600))
        cache.store(Data([1]), forKey: "old")
        cache.flush()
        CacheFixtures.setFileDates(cache.path(for: "old"), to: Date(timeIntervalSinceNow: -7200))
        try FileManager.default.removeItem(at: dir.appendingPathComponent(".index"))
        let reopened = DiskCache(directory: dir, configuration: CacheFixtures.diskConfiguration(maxAge: 3600))
        #expect(reopened.removeExpiredData() == 1)
        #expect(reopened.totalCount == 0)
    }

    @Test("Given the access-date policy, when an entry is read, then it survives and the unread one expires")
    func expiryByAccessDate() {
        let dir = CacheFixtures.temporaryDirectory()
        defer { CacheFixtures.remove(dir) }
        let clock = CacheFixtures.Clock()
        let cache = DiskCache(
            directory: dir, configuration: CacheFixtures.diskConfiguration(maxAge: 100, expireDate: .accessDate),
            now: { clock.now })
        cache.store(Data([1]), forKey: "read")
        cache.store(Data([2]), forKey: "unread")
        cache.flush()
        clock.advance(80)
        #expect(cache.data(for: "read") == Data([1]))
        clock.advance(80)
        #expect(cache.removeExpiredData() == 1)
        #expect(cache.contains("read"))
        #expect(!cache.contains("unread"))
    }

    @Test(
        "Given creation and change dates, when time passes the max age, then entries expire",
        arguments: [DiskCacheExpireDate.creationDate, .changeDate, .modificationDate])
    func expiryByOtherDates(kind: DiskCacheExpireDate) throws {
        let dir = CacheFixtures.temporaryDirectory()
        defer { CacheFixtures.remove(dir) }
        let clock = CacheFixtures.Clock()
        let cache = DiskCache(
            directory: dir, configuration: CacheFixtures.diskConfiguration(maxAge: 100, expireDate: kind), now: { clock.now })
        cache.store(Data([1]), forKey: "a")
        cache.flush()
        clock.advance(50)
        #expect(cache.removeExpiredData() == 0)
        // Rebuilt from the real file dates, the entry is still young.
        try cache.rebuildIndex()
        #expect(cache.removeExpiredData() == 0)
        clock.advance(100)
        #expect(cache.removeExpiredData() == 1)
        #expect(!cache.contains("a"))
    }

    @Test("Given a negative max age, then nothing expires by age")
    func neverExpire() {
        let dir = CacheFixtures.temporaryDirectory()
        defer { CacheFixtures.remove(dir) }
        let clock = CacheFixtures.Clock()
        let cache = DiskCache(directory: dir, configuration: CacheFixtures.diskConfiguration(maxAge: -1), now: { clock.now })
        cache.store(Data([1]), forKey: "a")
        clock.advance(1e9)
        #expect(cache.removeExpiredData() == 0)
        #expect(cache.removeExpiredData(maxAge: 1e300, maxSize: nil) == 0)
        #expect(cache.removeExpiredData(maxAge: .nan, maxSize: nil) == 0)
        #expect(cache.removeExpiredData(maxAge: .infinity, maxSize: -5) == 0)
        #expect(cache.contains("a"))
    }

    @Test("Given a size limit, when exceeded, then the oldest entries go until at most half remains")
    func sizeTrimming() throws {
        let dir = CacheFixtures.temporaryDirectory()
        defer { CacheFixtures.remove(dir) }
        let clock = CacheFixtures.Clock()
        let cache = DiskCache(directory: dir, configuration: CacheFixtures.diskConfiguration(maxSize: 10_000), now: { clock.now })
        for i in 0..<10 {
            cache.store(Data(repeating: UInt8(i), count: 1000), forKey: "k\(i)")
            clock.advance(1)
        }
        cache.flush()
        #expect(cache.totalSize == 10_000)
        cache.store(Data(repeating: 99, count: 1000), forKey: "k10")
        cache.flush()
        #expect(cache.totalSize <= 5000)
        #expect(cache.totalSize == 5000)
        for i in 0..<6 { #expect(!cache.contains("k\(i)")) }
        for i in 6...10 { #expect(cache.contains("k\(i)")) }
        #expect(CacheFixtures.entryFiles(in: dir).count == 5)
        // The explicit call with a smaller limit trims too.
        #expect(cache.removeExpiredData(maxAge: nil, maxSize: 3000) == 4)
        #expect(cache.totalSize == 1000)
        #expect(cache.contains("k10"))
    }

    @Test("Given a deleted index file, when the cache opens, then the index is rebuilt from the files")
    func indexRebuild() throws {
        let dir = CacheFixtures.temporaryDirectory()
        defer { CacheFixtures.remove(dir) }
        let cache = DiskCache(directory: dir, configuration: CacheFixtures.diskConfiguration())
        for i in 0..<20 { cache.store(Data(repeating: 1, count: i + 1), forKey: "k\(i)") }
        cache.flush()
        try FileManager.default.removeItem(at: dir.appendingPathComponent(".index"))
        // The running cache notices too.
        #expect(cache.totalCount == 20)
        try FileManager.default.removeItem(at: dir.appendingPathComponent(".index"))
        let reopened = DiskCache(directory: dir, configuration: CacheFixtures.diskConfiguration())
        #expect(reopened.totalCount == 20)
        #expect(reopened.totalSize == (1...20).reduce(0, +))
        // A corrupt index file is rebuilt as well.
        try Data("garbage\n+zz 1 2\n".utf8).write(to: dir.appendingPathComponent(".index"))
        let third = DiskCache(directory: dir, configuration: CacheFixtures.diskConfiguration())
        #expect(third.totalCount == 20)
    }

    @Test("Given an indexed entry whose file vanished, when read, then it is a miss and the index is fixed")
    func missingFileFixesIndex() throws {
        let dir = CacheFixtures.temporaryDirectory()
        defer { CacheFixtures.remove(dir) }
        let cache = DiskCache(directory: dir, configuration: CacheFixtures.diskConfiguration())
        cache.store(Data([1, 2, 3]), forKey: "k")
        cache.flush()
        try FileManager.default.removeItem(at: cache.path(for: "k"))
        #expect(cache.data(for: "k") == nil)
        #expect(cache.totalCount == 0)
        #expect(cache.totalSize == 0)
    }

    @Test("Given a lookup directory, when a key is missing from the cache, then the lookup file is read")
    func lookupDirectories() throws {
        let dir = CacheFixtures.temporaryDirectory()
        let bundled = CacheFixtures.temporaryDirectory("bundled")
        defer {
            CacheFixtures.remove(dir)
            CacheFixtures.remove(bundled)
        }
        let name = DiskCacheFileName.forKey("shipped.png")
        try Data([7, 7]).write(to: bundled.appendingPathComponent(name))
        var configuration = CacheFixtures.diskConfiguration()
        configuration.additionalLookupDirectories = [bundled]
        let cache = DiskCache(directory: dir, configuration: configuration)
        #expect(cache.contains("shipped.png"))
        #expect(cache.data(for: "shipped.png") == Data([7, 7]))
        #expect(cache.totalCount == 0)
        cache.removeAll()
        #expect(FileManager.default.fileExists(atPath: bundled.appendingPathComponent(name).path))
    }

    @Test("Given an old cache directory, when migrated, then its entries move in and it is removed")
    func migration() throws {
        let old = CacheFixtures.temporaryDirectory("old")
        let dir = CacheFixtures.temporaryDirectory()
        defer {
            CacheFixtures.remove(old)
            CacheFixtures.remove(dir)
        }
        let oldCache = DiskCache(directory: old, configuration: CacheFixtures.diskConfiguration())
        oldCache.store(Data([1]), forKey: "a")
        oldCache.store(Data([2, 2]), forKey: "b")
        oldCache.flush()
        let cache = DiskCache(directory: dir, configuration: CacheFixtures.diskConfiguration())
        cache.store(Data([3, 3, 3]), forKey: "b")
        cache.flush()
        #expect(try cache.migrate(from: old) == 1)
        #expect(cache.data(for: "a") == Data([1]))
        #expect(cache.data(for: "b") == Data([3, 3, 3]))
        #expect(cache.totalCount == 2)
        #expect(cache.totalSize == 4)
    }

    @Test("Given entries, when removeAll, then the folder holds no entries and totals are zero")
    func removeAll() {
        let dir = CacheFixtures.temporaryDirectory()
        defer { CacheFixtures.remove(dir) }
        let cache = DiskCache(directory: dir, configuration: CacheFixtures.diskConfiguration())
        for i in 0..<10 { cache.store(Data([UInt8(i)]), forKey: "k\(i)") }
        cache.removeAll()
        #expect(cache.totalCount == 0)
        #expect(CacheFixtures.entryFiles(in: dir).isEmpty)
        #expect(cache.data(for: "k3") == nil)
        let stats = try? cache.statistics()
        #expect(stats?.count == 0 && stats?.oldest == nil)
    }

    @Test("Given an abandoned temporary file of a dead process, when the cache opens, then it is deleted")
    func abandonedTemporaryFiles() throws {
        let dir = CacheFixtures.temporaryDirectory()
        defer { CacheFixtures.remove(dir) }
        // PID 2^22+1 is above Linux's default pid_max range and never alive.
        let stale = dir.appendingPathComponent(".tmp-4194305-1")
        try Data([1]).write(to: stale)
        _ = DiskCache(directory: dir, configuration: CacheFixtures.diskConfiguration())
        #expect(!FileManager.default.fileExists(atPath: stale.path))
    }

    @Test("Given a lock left dirty by a dead holder and an unindexed entry, when the cache opens, then the index is rebuilt")
    func dirtyLockRecovery() throws {
        let dir = CacheFixtures.temporaryDirectory()
        defer { CacheFixtures.remove(dir) }
        let cache = DiskCache(directory: dir, configuration: CacheFixtures.diskConfiguration())
        cache.store(Data([1, 2]), forKey: "indexed")
        cache.flush()
        // The state a holder killed between rename and log line leaves behind.
        try Data([4, 4, 4]).write(to: cache.path(for: "orphan"))
        let lock = try FileHandle(forWritingTo: dir.appendingPathComponent(".lock"))
        try lock.write(contentsOf: Data("1".utf8))
        try lock.close()
        let reopened = DiskCache(directory: dir, configuration: CacheFixtures.diskConfiguration())
        #expect(reopened.totalCount == 2)
        #expect(reopened.totalSize == 5)
        #expect(try Data(contentsOf: dir.appendingPathComponent(".lock")).first == UInt8(ascii: "0"))
    }

    @Test("Given an index line cut short by a crash, when others append and reload, then the index stays exact")
    func tornIndexLine() throws {
        let dir = CacheFixtures.temporaryDirectory()
        defer { CacheFixtures.remove(dir) }
        let cache = DiskCache(directory: dir, configuration: CacheFixtures.diskConfiguration())
        cache.store(Data([1]), forKey: "a")
        cache.flush()
        let index = try FileHandle(forWritingTo: dir.appendingPathComponent(".index"))
        try index.seekToEnd()
        try index.write(contentsOf: Data("+0123456789abcdef 12".utf8))
        try index.close()
        cache.store(Data([2, 2]), forKey: "b")
        cache.flush()
        #expect(cache.totalCount == 2)
        let reopened = DiskCache(directory: dir, configuration: CacheFixtures.diskConfiguration())
        #expect(reopened.totalCount == 2)
        #expect(reopened.totalSize == 3)
        #expect(try reopened.engine.indexSnapshot() == [cache.fileName(for: "a"): 1, cache.fileName(for: "b"): 2])
    }

    @Test("Given automatic cleaning, when a cache opens on expired entries, then they are removed without a call")
    func automaticCleaningOnOpen() throws {
        let dir = CacheFixtures.temporaryDirectory()
        defer { CacheFixtures.remove(dir) }
        let first = DiskCache(directory: dir, configuration: CacheFixtures.diskConfiguration(maxAge: 3600))
        first.store(Data([1]), forKey: "old")
        first.store(Data([2]), forKey: "fresh")
        first.flush()
        CacheFixtures.setFileDates(first.path(for: "old"), to: Date(timeIntervalSinceNow: -7200))
        try first.rebuildIndex()
        var configuration = CacheFixtures.diskConfiguration(maxAge: 3600)
        configuration.automaticCleaningInterval = 3600
        let second = DiskCache(directory: dir, configuration: configuration)
        second.flush()
        #expect(!second.contains("old"))
        #expect(second.contains("fresh"))
    }
}
