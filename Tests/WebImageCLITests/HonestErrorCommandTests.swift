import Foundation
import NIOCore
import Testing
import WebImageTesting

#if canImport(Glibc)
    import Glibc
#endif

/// SPEC through the tool: every failure says what happened in plain words, and
/// `--max-time` ends a download that drips.
@Suite("webimage honest errors (R-4) and --max-time (R-2)")
struct HonestErrorCommandTests {
    @Test("Given a directory as input, when info and convert run, then they say it is a directory and exit non-zero")
    func directoryInput() async throws {
        let directory = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let info = try await CLIRunner.run(["info", directory.path])
        #expect(info.status != 0)
        #expect(info.stdout.contains("is a directory, not a regular file"), "stdout: \(info.stdout)")
        #expect(!info.stdout.contains("NSCocoaErrorDomain"))
        let convert = try await CLIRunner.run(["convert", directory.path, directory.appendingPathComponent("o.png").path])
        #expect(convert.status != 0)
        #expect(convert.stderr.contains("\(directory.path): is a directory, not a regular file"), "stderr: \(convert.stderr)")
    }

    @Test("Given a FIFO as input, when info and convert run, then they say it is a FIFO without waiting for a writer")
    func fifoInput() async throws {
        let directory = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let fifo = directory.appendingPathComponent("pipe.png").path
        try #require(mkfifo(fifo, 0o600) == 0)
        let info = try await CLIRunner.run(["info", fifo])
        #expect(info.status != 0)
        #expect(info.stdout.contains("is a FIFO (named pipe), not a regular file"), "stdout: \(info.stdout)")
        #expect(!info.stdout.contains("permission"))
        let convert = try await CLIRunner.run(["convert", fifo, directory.appendingPathComponent("o.png").path])
        #expect(convert.status != 0)
        #expect(convert.stderr.contains("is a FIFO (named pipe)"), "stderr: \(convert.stderr)")
    }

    @Test(
        "Given an output under /proc, when convert runs, then it says the directory does not accept new files",
        .enabled(if: FileManager.default.fileExists(atPath: "/proc/self")))
    func procOutput() async throws {
        let (input, directory) = try DecodeBudgetCommandTests.file("in.gif", BombFixtures.manyFrameGIF(frames: 1, canvas: 4))
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await CLIRunner.run(["convert", input.path, "/proc/x.png"])
        #expect(result.status != 0)
        #expect(
            result.stderr.contains("/proc/x.png: cannot write: the directory /proc does not accept new files"),
            "stderr: \(result.stderr)")
        #expect(!result.stderr.contains("doesn’t exist") && !result.stderr.contains("doesn't exist"))
    }

    @Test("Given a server dripping a byte a second, when fetch runs with --max-time 2, then it fails with the total deadline, long before the drip ends")
    func maxTimeEndsDrip() async throws {
        let server = RawResponseServer()
        try await server.start()
        let head = Array("HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nContent-Length: 120\r\n\r\n".utf8)
        server.script("/drip.png", RawResponseServer.Script(bytes: head + [UInt8](repeating: 0x41, count: 120), pieceSize: 1, pieceInterval: .seconds(1)))
        let cache = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: cache) }
        let result = try await CLIRunner.run([
            "fetch", server.url("/drip.png").absoluteString, "--timeout", "10", "--max-time", "2", "--cache-dir", cache.path,
        ])
        await server.shutdown()
        #expect(result.status != 0)
        #expect(result.stderr.contains("timedOut"), "stderr: \(result.stderr)")
        #expect(result.stderr.contains("total deadline of 2 s"), "stderr: \(result.stderr)")
    }

    @Test("Given --help, then fetch, prefetch, info and convert document --max-time", arguments: ["fetch", "prefetch", "info", "convert"])
    func maxTimeHelp(command: String) async throws {
        let result = try await CLIRunner.run([command, "--help"])
        #expect(result.stdout.contains("--max-time <seconds>"), "\(command) --help: \(result.stdout)")
    }
}
