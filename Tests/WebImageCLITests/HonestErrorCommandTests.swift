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

    @Test(
        "Given a local 18 MP JPEG and --max-time 0.001, when convert and info --decode run, then both report the total deadline and convert leaves no output",
        .enabled(if: Corpus.isAvailable))
    func maxTimeCoversLocalDecode() async throws {
        let input = Corpus.url("sdwebimage/TestImageLarge.jpg").path
        let directory = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("out.png")
        let convert = try await CLIRunner.run(["convert", input, output.path, "--max-time", "0.001"])
        #expect(convert.status != 0)
        #expect(convert.stderr.contains("total deadline of 0.001 s"), "stderr: \(convert.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output.path))
        let info = try await CLIRunner.run(["info", "--decode", "--json", input, "--max-time", "0.001"])
        #expect(info.status != 0)
        let object = try InfoCommandTests.jsonObjects(info.stdout).first
        #expect((object?["error"] as? String)?.contains("total deadline of 0.001 s") == true, "stdout: \(info.stdout)")
    }

    @Test("Given --help, then fetch, prefetch, info and convert document --max-time", arguments: ["fetch", "prefetch", "info", "convert"])
    func maxTimeHelp(command: String) async throws {
        let result = try await CLIRunner.run([command, "--help"])
        #expect(result.stdout.contains("--max-time <seconds>"), "\(command) --help: \(result.stdout)")
    }
}

/// SPEC R-4: codec libraries print nothing of their own.
@Suite("webimage keeps codec libraries' output off standard error")
struct CodecOutputCommandTests {
    /// Damaged JPEG XL files made from the corpus's: its container header followed by garbage
    /// (libjxl: "invalid signature"), and its first 300 bytes ("missing input"). Debian's
    /// libjxl prints such `./lib/jxl/…` lines to stderr.
    static func damaged() throws -> [(String, Data)] {
        let whole = try Corpus.data("sdwebimage/TestHDR.jxl")
        let garbage = Data((0..<400).map { UInt8(($0 * 37 + 11) & 0xFF) })
        return [("garbage.jxl", whole.prefix(40) + garbage), ("truncated.jxl", whole.prefix(300))]
    }

    @Test(
        "Given damaged JPEG XL files, when info and convert run, then standard error holds only the tool's own error lines",
        .enabled(if: Corpus.isAvailable))
    func damagedJXL() async throws {
        let directory = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        for (name, data) in try Self.damaged() {
            let file = directory.appendingPathComponent(name)
            try data.write(to: file)
            for arguments in [["convert", file.path, directory.appendingPathComponent("o.png").path], ["info", "--decode", file.path]] {
                let result = try await CLIRunner.run(arguments)
                #expect(result.status != 0, "\(arguments)")
                #expect(!result.stderr.contains("lib/jxl"), "\(arguments): \(result.stderr)")
                for line in result.stderr.split(separator: "\n") { #expect(line.hasPrefix("error:"), "\(arguments): \(line)") }
            }
        }
    }

    @Test(
        "Given WEBIMAGE_LOG_LEVEL=debug, then the dropped codec lines are shown, marked as the codec library's",
        .enabled(if: Corpus.isAvailable))
    func debugShowsCodecLines() async throws {
        let directory = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("garbage.jxl")
        try Self.damaged()[0].1.write(to: file)
        let result = try await CLIRunner.run(["convert", file.path, directory.appendingPathComponent("o.png").path], environment: ["WEBIMAGE_LOG_LEVEL": "debug"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("codec library: ./lib/jxl/"), "stderr: \(result.stderr)")
    }
}
