import Foundation
import Testing
@testable import WebImage
#if canImport(Glibc)
    import Glibc
#endif

/// Crash safety and two processes sharing one directory (SPEC S-3, X-4). The child processes
/// are the hidden `webimage cache stress` subcommand, built next to the test bundle.
@Suite("Disk cache across processes (S-3, X-4)", .enabled(if: CacheFixtures.webimageTool != nil))
struct CacheDiskProcessTests {
    private func launchStress(_ directory: URL, _ arguments: [String]) throws -> Process {
        let process = Process()
        process.executableURL = CacheFixtures.webimageTool
        process.arguments = ["cache", "stress", "--cache-dir", directory.path] + arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// Waits for `process` to exit; a hang guard of 300 s (two debug-built writers on a loaded
    /// machine), then the process is killed so that its status can be read.
    private func waitForExit(_ process: Process, seconds: Int = 300) async {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while process.isRunning, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(10)) }
        if process.isRunning {
            Issue.record("\(process.arguments ?? []) still running after \(seconds) s")
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// Checks that every entry is whole and the index matches the files exactly.
    private func expectConsistent(_ directory: URL, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let cache = DiskCache(directory: directory, configuration: CacheFixtures.diskConfiguration())
        let files = CacheFixtures.entryFiles(in: directory)
        var sizes: [String: Int] = [:]
        for name in files {
            let data = try Data(contentsOf: directory.appendingPathComponent(name))
            #expect(CacheFixtures.isWholeStressEntry(data), "torn entry \(name)", sourceLocation: sourceLocation)
            sizes[name] = data.count
        }
        #expect(try cache.engine.indexSnapshot() == sizes, sourceLocation: sourceLocation)
        #expect(cache.totalCount == files.count, sourceLocation: sourceLocation)
        #expect(cache.totalSize == sizes.values.reduce(0, +), sourceLocation: sourceLocation)
        let temps = ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).filter { $0.hasPrefix(".tmp-") }
        #expect(temps.isEmpty, "temporary files left: \(temps)", sourceLocation: sourceLocation)
    }

    @Test("Given a writer killed with SIGKILL mid-write, then every entry is absent or whole and the index recovers")
    func crashDuringWrites() async throws {
        let dir = CacheFixtures.temporaryDirectory()
        defer { CacheFixtures.remove(dir) }
        for round in 0..<3 {
            let process = try launchStress(dir, ["--writer", "\(round)", "--count", "100000", "--keys", "12", "--size", "2000000"])
            // Wait (bounded) until writing is under way, then let it run into the middle of writes.
            let deadline = ContinuousClock.now + .seconds(60)
            while CacheFixtures.entryFiles(in: dir).count < 2, process.isRunning, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(5))
            }
            try await Task.sleep(for: .milliseconds(50 + round * 37))
            kill(process.processIdentifier, SIGKILL)
            await waitForExit(process)
            #expect(!process.isRunning)
            #expect(process.terminationReason == .uncaughtSignal)
            try expectConsistent(dir)
        }
    }

    @Test("Given two processes writing the same keys at once, then no entry is lost or torn and the index is exact")
    func twoWriters() async throws {
        let dir = CacheFixtures.temporaryDirectory()
        defer { CacheFixtures.remove(dir) }
        let a = try launchStress(dir, ["--writer", "1", "--count", "120", "--keys", "30", "--size", "20000"])
        let b = try launchStress(dir, ["--writer", "2", "--count", "120", "--keys", "30", "--size", "20000"])
        await waitForExit(a)
        await waitForExit(b)
        #expect(a.terminationStatus == 0 && b.terminationStatus == 0)
        try expectConsistent(dir)
        let cache = DiskCache(directory: dir, configuration: CacheFixtures.diskConfiguration())
        for n in 0..<30 { #expect(cache.data(for: "stress-\(n)").map(CacheFixtures.isWholeStressEntry) == true) }
    }

    @Test("Given two processes writing and trimming one directory at once, then entries are whole and the index is exact")
    func twoWritersAndCleaners() async throws {
        let dir = CacheFixtures.temporaryDirectory()
        defer { CacheFixtures.remove(dir) }
        let limit = ["--max-size", "300000", "--clean-every", "5"]
        let a = try launchStress(dir, ["--writer", "1", "--count", "150", "--keys", "40", "--size", "20000"] + limit)
        let b = try launchStress(dir, ["--writer", "2", "--count", "150", "--keys", "40", "--size", "20000"] + limit)
        await waitForExit(a)
        await waitForExit(b)
        #expect(a.terminationStatus == 0 && b.terminationStatus == 0)
        try expectConsistent(dir)
        let cache = DiskCache(directory: dir, configuration: CacheFixtures.diskConfiguration())
        #expect(cache.totalSize <= 300_000)
    }
}

@Suite("webimage cache command", .enabled(if: CacheFixtures.webimageTool != nil))
struct CacheCommandTests {
    private func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = CacheFixtures.webimageTool
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    @Test("Given a cache directory, when stats, clean and clear run with --json, then they report count, bytes and dates")
    func statsCleanClear() throws {
        let dir = CacheFixtures.temporaryDirectory()
        defer { CacheFixtures.remove(dir) }
        let cache = DiskCache(directory: dir, configuration: CacheFixtures.diskConfiguration())
        for i in 0..<5 { cache.store(Data(repeating: 1, count: 100), forKey: "k\(i)") }
        cache.flush()
        let stats = try run(["cache", "stats", "--cache-dir", dir.path, "--json"])
        #expect(stats.status == 0)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(stats.output.utf8)) as? [String: Any])
        #expect(json["count"] as? Int == 5)
        #expect(json["bytes"] as? Int == 500)
        #expect(json["oldest"] is String)
        #expect(json["newest"] is String)
        let text = try run(["cache", "stats", "--cache-dir", dir.path])
        #expect(text.output.contains("count:     5"))
        let clean = try run(["cache", "clean", "--cache-dir", dir.path, "--max-size", "300", "--json"])
        let cleaned = try #require(try JSONSerialization.jsonObject(with: Data(clean.output.utf8)) as? [String: Any])
        #expect(cleaned["count"] as? Int == 1)
        #expect(cleaned["removed"] as? Int == 4)
        let clear = try run(["cache", "clear", "--cache-dir", dir.path, "--json"])
        let cleared = try #require(try JSONSerialization.jsonObject(with: Data(clear.output.utf8)) as? [String: Any])
        #expect(cleared["count"] as? Int == 0)
        #expect(cleared["oldest"] is NSNull)
        #expect(CacheFixtures.entryFiles(in: dir).isEmpty)
    }
}
