import Foundation

/// Runs the built `webimage` binary the two ways ``CLIRunner`` cannot: with bytes on standard
/// input, and attached to a pseudo-terminal (util-linux `script`, part of every Debian system),
/// so that terminal-only output — the redrawn progress bar, colours — can be asserted.
enum TerminalRunner {
    enum Failure: Error {
        case missing(String)
    }

    /// Runs `webimage arguments…` with `input` on standard input.
    static func run(_ arguments: [String], input: Data, environment: [String: String] = [:]) throws -> CLIRunner.Result {
        guard let binary = CLIRunner.binary else { throw Failure.missing("webimage") }
        let stdin = Pipe()
        let result = try CLIRunner.launch(binary, arguments, environment: environment, standardInput: stdin) {
            stdin.fileHandleForWriting.write(input)
            try? stdin.fileHandleForWriting.close()
        }
        return result
    }

    /// Runs `webimage arguments…` on a pseudo-terminal. Standard output and standard error both
    /// go to the terminal, so `stdout` of the result holds everything the user would see
    /// (with the terminal's `\r\n` line ends).
    static func runInTerminal(_ arguments: [String], environment: [String: String] = [:]) throws -> CLIRunner.Result {
        guard let binary = CLIRunner.binary else { throw Failure.missing("webimage") }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/script") else { throw Failure.missing("/usr/bin/script (make setup installs bsdutils)") }
        let command = ([binary.path] + arguments).map(shellQuoted).joined(separator: " ")
        var env = environment
        env["TERM"] = env["TERM"] ?? "xterm"
        return try CLIRunner.launch(
            URL(fileURLWithPath: "/usr/bin/script"), ["--quiet", "--return", "--command", command, "/dev/null"],
            environment: env)
    }

    /// `value` in single quotes for `sh -c`.
    static func shellQuoted(_ value: String) -> String {
        "'" + value.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
