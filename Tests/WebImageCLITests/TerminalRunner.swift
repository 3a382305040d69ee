import Foundation

/// Runs the built `webimage` binary the two ways ``CLIRunner`` cannot: with bytes on standard
/// input, and attached to a pseudo-terminal (util-linux `script`, part of every Debian system),
/// so that terminal-only output — the redrawn progress bar, colours — can be asserted.
enum TerminalRunner {
    enum Failure: Error {
        case missing(String)
        case timedOut([String])
    }

    /// Runs `webimage arguments…` with `input` on standard input.
    static func run(_ arguments: [String], input: Data, environment: [String: String] = [:]) throws -> CLIRunner.Result {
        guard let binary = CLIRunner.binary else { throw Failure.missing("webimage") }
        let stdin = Pipe()
        let result = try launch(binary, arguments, environment: environment, standardInput: stdin) {
            stdin.fileHandleForWriting.write(input)
            try? stdin.fileHandleForWriting.close()
        }
        return result
    }

    /// Whether ``runInTerminal(_:environment:)`` can work here.
    static var hasScript: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/script") }

    /// Runs `webimage arguments…` on a pseudo-terminal. Standard output and standard error both
    /// go to the terminal, so `stdout` of the result holds everything the user would see
    /// (with the terminal's `\r\n` line ends).
    static func runInTerminal(_ arguments: [String], environment: [String: String] = [:]) throws -> CLIRunner.Result {
        guard let binary = CLIRunner.binary else { throw Failure.missing("webimage") }
        guard hasScript else { throw Failure.missing("/usr/bin/script") }
        let command = ([binary.path] + arguments).map(shellQuoted).joined(separator: " ")
        var env = environment
        env["TERM"] = env["TERM"] ?? "xterm"
        return try launch(
            URL(fileURLWithPath: "/usr/bin/script"), ["--quiet", "--return", "--command", command, "/dev/null"],
            environment: env, standardInput: FileHandle.nullDevice, afterStart: {})
    }

    /// `value` in single quotes for `sh -c`.
    static func shellQuoted(_ value: String) -> String {
        "'" + value.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    private static func launch(
        _ executable: URL, _ arguments: [String], environment: [String: String], standardInput: Any,
        afterStart: () throws -> Void
    ) throws -> CLIRunner.Result {
        let scratch = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let outURL = scratch.appendingPathComponent("stdout")
        let errURL = scratch.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let outHandle = try FileHandle(forWritingTo: outURL)
        let errHandle = try FileHandle(forWritingTo: errURL)
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = CLIRunner.projectRoot
        var env = ProcessInfo.processInfo.environment
        env.removeValue(forKey: "NO_COLOR")
        for (key, value) in environment { env[key] = value }
        process.environment = env
        process.standardInput = standardInput
        process.standardOutput = outHandle
        process.standardError = errHandle
        try process.run()
        try afterStart()
        // Hang detection only (not a timing assertion).
        let deadline = ContinuousClock.now + .seconds(120)
        while process.isRunning {
            if ContinuousClock.now > deadline {
                process.terminate()
                process.waitUntilExit()
                throw Failure.timedOut(arguments)
            }
            Thread.sleep(forTimeInterval: 0.01)
        }
        process.waitUntilExit()
        try outHandle.close()
        try errHandle.close()
        return CLIRunner.Result(
            status: process.terminationStatus,
            stdout: String(decoding: try Data(contentsOf: outURL), as: UTF8.self),
            stderr: String(decoding: try Data(contentsOf: errURL), as: UTF8.self))
    }

    /// ``run(_:input:environment:)`` or ``runInTerminal(_:environment:)`` on a thread of its own
    /// (they wait for the child synchronously; see ``FetchFixtures/run(_:environment:)``).
    static func detached(_ work: @escaping @Sendable () throws -> CLIRunner.Result) async throws -> CLIRunner.Result {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try work() }) }.start()
        }
    }
}
