import Foundation
import WebImageTesting

#if canImport(Glibc)
    import Glibc
#endif

/// A `webimage serve` child process on 127.0.0.1 (free port), optionally with a lowered
/// `RLIMIT_NOFILE`, and what `/proc` says of it: peak resident memory, CPU time, open files.
final class ServeProcess: Sendable {
    let process: Process
    let base: String
    let pid: Int32

    /// Starts `webimage serve --bind 127.0.0.1:0 --allow-network loopback` with `arguments`
    /// (and `environment` over the test's own variables), and waits for its "listening on" line.
    static func start(_ arguments: [String], openFileLimit: Int? = nil, environment: [String: String]? = nil) async throws -> ServeProcess {
        guard let binary = CLIRunner.binary else { throw CLIRunner.CLIError.binaryNotFound }
        let process = Process()
        let serve = ["serve", "--bind", "127.0.0.1:0", "--allow-network", "loopback"] + arguments
        if let openFileLimit {
            // The shell lowers both limits, then becomes the service (same pid).
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "ulimit -n \(openFileLimit) && exec \"$0\" \"$@\"", binary.path] + serve
        } else {
            process.executableURL = binary
            process.arguments = serve
        }
        if let environment {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let line = try await firstLine(of: output)
        guard line.hasPrefix("listening on ") else {
            process.terminate()
            throw CLIRunner.CLIError.timedOut(serve)
        }
        return ServeProcess(process: process, base: String(line.dropFirst("listening on ".count)))
    }

    /// The first line a child writes to `pipe` (bytes until the newline), read off the pool.
    static func firstLine(of pipe: Pipe) async throws -> String {
        try await Task.detached { () -> String in
            var bytes: [UInt8] = []
            while let chunk = try pipe.fileHandleForReading.read(upToCount: 1), let byte = chunk.first, byte != 10 {
                bytes.append(byte)
            }
            return String(decoding: bytes, as: UTF8.self)
        }.value
    }

    private init(process: Process, base: String) {
        self.process = process
        self.base = base
        self.pid = process.processIdentifier
    }

    var port: Int { Int(base.split(separator: ":").last ?? "") ?? 0 }

    /// The process's peak resident set size in bytes (`VmHWM`).
    var peakResidentBytes: Int { Self.statusField("VmHWM", pid: pid) * 1024 }

    /// The process's user + system CPU time in seconds.
    var cpuSeconds: Double {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = text.lastIndex(of: ")")
        else { return 0 }
        let fields = text[text.index(after: close)...].split(separator: " ")
        // After the name: state is field 3, utime 14, stime 15 (1-based) → indices 11 and 12 here.
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// Open file descriptors of the process.
    var openFiles: Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? 0
    }

    var isRunning: Bool { process.isRunning }

    func stop() async {
        if process.isRunning { process.terminate() }
        await Task.detached { [process] in process.waitUntilExit() }.value
    }

    static func statusField(_ name: String, pid: Int32) -> Int {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return 0 }
        for line in text.split(separator: "\n") where line.hasPrefix(name + ":") {
            return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? 0
        }
        return 0
    }
}
