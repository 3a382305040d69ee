import Foundation
import Testing
@testable import WebImage

/// The cache directory marker and what `removeAll()` may delete (issue 17).
@Suite("Disk cache marker and removal")
struct CacheDiskMarkerTests {
    @Test("Given a new directory, when a DiskCache opens it, then it carries the marker and inspectDirectory says cache")
    func marksItsDirectory() {
        let parent = CacheFixtures.temporaryDirectory()
        defer { CacheFixtures.remove(parent) }
        let directory = parent.appendingPathComponent("cache", isDirectory: true)
        #expect(DiskCache.inspectDirectory(directory) == .missing)
        _ = DiskCache(directory: directory, configuration: CacheFixtures.diskConfiguration())
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent(DiskCache.markerFileName).path))
        #expect(DiskCache.inspectDirectory(directory) == .cache)
    }

    @Test("inspectDirectory tells missing, file, empty, other files and an unmarked cache apart, creating nothing")
    func inspects() throws {
        let parent = CacheFixtures.temporaryDirectory()
        defer { CacheFixtures.remove(parent) }
        #expect(DiskCache.inspectDirectory(parent) == .empty)
        let file = parent.appendingPathComponent("file")
        try Data("x".utf8).write(to: file)
        #expect(DiskCache.inspectDirectory(file) == .notADirectory)
        #expect(DiskCache.inspectDirectory(parent) == .notACache)

        let old = parent.appendingPathComponent("old", isDirectory: true)
        let cache = DiskCache(directory: old, configuration: CacheFixtures.diskConfiguration())
        cache.store(Data([1, 2]), forKey: "k")
        cache.flush()
        try FileManager.default.removeItem(at: old.appendingPathComponent(DiskCache.markerFileName))
        #expect(DiskCache.inspectDirectory(old) == .unmarkedCache)
        #expect(!FileManager.default.fileExists(atPath: old.appendingPathComponent(DiskCache.markerFileName).path), "inspecting wrote nothing")
    }

    @Test("Given an entry-named file the index does not list, when removeAll, then the entries go and that file stays")
    func removeAllKeepsUnknownFiles() async throws {
        let directory = CacheFixtures.temporaryDirectory()
        defer { CacheFixtures.remove(directory) }
        let cache = DiskCache(directory: directory, configuration: CacheFixtures.diskConfiguration())
        try await cache.storeAndWait(Data([1]), forKey: "a")
        try await cache.storeAndWait(Data([2]), forKey: "b")
        let stranger = String(repeating: "0f", count: 32) + ".txt"
        try Data("user".utf8).write(to: directory.appendingPathComponent(stranger))
        cache.removeAll()
        #expect(CacheFixtures.entryFiles(in: directory) == [stranger])
        #expect(cache.totalCount == 0)
    }
}
