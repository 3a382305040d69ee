import Foundation
import Testing
import WebImage
import WebImageTesting

/// The disk cache opened on a directory whose files were damaged or forged — the index, the
/// entries, their side records, the lock — from a seed: it must never crash, never serve bytes
/// it did not store under that key, never touch a file outside its directory, and rebuild an
/// exact index.
@Suite("Disk cache on hostile files")
struct CacheDiskHostileFilesTests {
    static let rounds = 40

    private static func fill(_ cache: DiskCache, count: Int) async throws -> [String: Data] {
        var stored: [String: Data] = [:]
        for index in 0..<count {
            let key = "https://example.invalid/\(index).png"
            let data = Data((0..<(50 + index * 13)).map { UInt8(truncatingIfNeeded: $0 * (index + 3)) })
            try await cache.storeAndWait(data, forKey: key, extendedData: DiskCacheExtendedData(eTag: "\"e\(index)\""))
            stored[key] = data
        }
        return stored
    }

    /// Damages files in `directory` from `random`; returns the keys whose entry bytes were changed.
    private static func damage(_ directory: URL, keys: [String], cache: DiskCache, random: inout SeededRandom) throws -> Set<String> {
        let manager = FileManager.default
        var changed = Set<String>()
        let index = directory.appendingPathComponent(".index")
        for _ in 0..<(1 + random.below(4)) {
            switch random.below(8) {
            case 0:  // mutate the index
                if var bytes = try? [UInt8](Data(contentsOf: index)) {
                    random.mutate(&bytes, maxEdits: 16)
                    try Data(bytes).write(to: index)
                }
            case 1:  // truncate the index
                if let bytes = try? Data(contentsOf: index) { try bytes.prefix(random.below(bytes.count + 1)).write(to: index) }
            case 2:  // forge index lines: escapes, absurd sizes, negative dates, garbage
                let name = String(repeating: "a", count: 64)
                let lines = [
                    "+\(name) 99999999999999 5\n", "-../sentinel\n", "+../sentinel 10 10\n", "+\(name).png -5 -5\n",
                    "-\(name)\n", String(repeating: "x", count: 5_000) + "\n", "\u{0}\u{1}\u{2}\n",
                ]
                let handle = try FileHandle(forWritingTo: index)
                handle.seekToEndOfFile()
                handle.write(Data(lines[random.below(lines.count)].utf8))
                try handle.close()
            case 3:  // garbage or empty entry bytes
                let key = keys[random.below(keys.count)]
                let garbage = Data((0..<random.below(300)).map { _ in UInt8(truncatingIfNeeded: random.next()) })
                try garbage.write(to: cache.path(for: key))
                changed.insert(key)
            case 4:  // an entry deleted behind the cache's back
                let key = keys[random.below(keys.count)]
                try? manager.removeItem(at: cache.path(for: key))
                changed.insert(key)
            case 5:  // a directory where an entry was
                let key = keys[random.below(keys.count)]
                try? manager.removeItem(at: cache.path(for: key))
                try manager.createDirectory(at: cache.path(for: key), withIntermediateDirectories: true)
                changed.insert(key)
            case 6:  // garbage side records
                for file in (try? manager.contentsOfDirectory(atPath: directory.path)) ?? [] where file.hasPrefix(".meta-") {
                    try Data((0..<random.below(64)).map { _ in UInt8(truncatingIfNeeded: random.next()) })
                        .write(to: directory.appendingPathComponent(file))
                }
            default:  // garbage in the lock file
                try Data("garbage\u{0}".utf8).write(to: directory.appendingPathComponent(".lock"))
            }
        }
        return changed
    }

    @Test("Given seeded damage to the cache's files, then opening, reading, storing, cleaning and rebuilding never crash, never serve other bytes, never escape the directory, and the rebuilt index is exact")
    func hostileFiles() async throws {
        var random = SeededRandom(seed: 0xD15C)
        let parent = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-hostile-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: parent) }
        let sentinel = parent.appendingPathComponent("sentinel")
        try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
        try Data("keep".utf8).write(to: sentinel)
        for round in 0..<Self.rounds {
            let directory = parent.appendingPathComponent("cache-\(round)", isDirectory: true)
            var configuration = DiskCacheConfiguration()
            configuration.automaticCleaningInterval = nil
            let stored = try await Self.fill(DiskCache(directory: directory, configuration: configuration), count: 8)
            let keys = stored.keys.sorted()
            let probe = DiskCache(directory: directory, configuration: configuration)
            let changed = try Self.damage(directory, keys: keys, cache: probe, random: &random)

            let cache = DiskCache(directory: directory, configuration: configuration)
            for key in keys {
                let data = cache.data(for: key)
                if !changed.contains(key) {
                    #expect(data == nil || data == stored[key], "round \(round): \(key) served other bytes")
                }
                let extended = cache.extendedData(for: key)
                #expect(extended == nil || extended?.eTag?.hasPrefix("\"e") == true, "round \(round)")
            }
            #expect(cache.totalSize >= 0 && cache.totalCount >= 0)
            _ = cache.removeExpiredData(maxAge: 3600, maxSize: 300)
            try await cache.storeAndWait(Data([1, 2, 3]), forKey: "after")
            #expect(cache.data(for: "after") == Data([1, 2, 3]))
            try cache.rebuildIndex()
            let files = try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: [.fileSizeKey, .isRegularFileKey])
                .filter { !$0.lastPathComponent.hasPrefix(".") && (try? $0.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true }
            let bytes = try files.reduce(0) { $0 + (try $1.resourceValues(forKeys: [.fileSizeKey]).fileSize ?? 0) }
            #expect(cache.totalCount == files.count, "round \(round)")
            #expect(cache.totalSize == bytes, "round \(round)")
            cache.removeAll()
            #expect(FileManager.default.fileExists(atPath: sentinel.path), "round \(round): a file outside the cache was removed")
        }
    }
}
