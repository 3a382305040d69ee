import Foundation
import Testing
import WebImageCore

#if canImport(Glibc)
    import Glibc
#endif

/// SPEC R-4: local file errors in plain words.
@Suite("LocalFile: reading and writing with plain-word errors")
struct LocalFileTests {
    static func reason(_ body: () throws -> Void) -> String? {
        do {
            try body()
            return nil
        } catch WebImageError.fileAccess(_, let reason) {
            return reason
        } catch {
            return "\(error)"
        }
    }

    @Test("Given a directory, a FIFO and a missing path, then reading says which")
    func readFailures() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("localfile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let fifo = directory.appendingPathComponent("pipe").path
        try #require(mkfifo(fifo, 0o600) == 0)
        #expect(Self.reason { _ = try LocalFile.read(directory.path) } == "is a directory, not a regular file")
        #expect(Self.reason { _ = try LocalFile.read(fifo) } == "is a FIFO (named pipe), not a regular file")
        #expect(Self.reason { _ = try LocalFile.read(directory.appendingPathComponent("none").path) } == "no such file")
    }

    @Test("Given a file, then it reads back what was written atomically; a size limit refuses a larger file")
    func roundTrip() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("localfile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("a.bin").path
        let data = Data((0..<10_000).map { UInt8($0 & 0xFF) })
        try LocalFile.writeAtomically(data, to: path)
        #expect(try LocalFile.read(path) == data)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["a.bin"], "no temporary file left")
        #expect(throws: WebImageError.self) { _ = try LocalFile.read(path, limit: 100) }
        #expect(Self.reason { try LocalFile.writeAtomically(data, to: path, mayReplace: { false }) } == "cancelled")
        #expect(try LocalFile.read(path) == data, "a refused replacement leaves the old file")
    }

    @Test("Given unwritable destinations, then writing says why")
    func writeFailures() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("localfile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let data = Data([1, 2, 3])
        #expect(
            Self.reason { try LocalFile.writeAtomically(data, to: directory.appendingPathComponent("no/x.png").path) }
                == "cannot write: the directory \(directory.path)/no does not exist")
        #expect(Self.reason { try LocalFile.writeAtomically(data, to: directory.path) } == "cannot write: it is a directory")
        if FileManager.default.fileExists(atPath: "/proc/self") {
            #expect(
                Self.reason { try LocalFile.writeAtomically(data, to: "/proc/x.png") }
                    == "cannot write: the directory /proc does not accept new files (a virtual file system such as /proc or /sys)")
        }
    }
}
