import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where the tool writes and whether it may colour its output: colour only when the stream is a
/// terminal and `NO_COLOR` is not set (https://no-color.org).
enum Console {
    /// A colour or weight for a piece of text.
    enum Style: String {
        case bold = "1"
        case dim = "2"
        case red = "31"
        case green = "32"
        case yellow = "33"
        case cyan = "36"
    }

    private static let noColor = ProcessInfo.processInfo.environment["NO_COLOR"] != nil

    /// Whether standard output gets ANSI colours.
    static let colorsStdout = !noColor && isatty(STDOUT_FILENO) == 1
    /// Whether standard error gets ANSI colours.
    static let colorsStderr = !noColor && isatty(STDERR_FILENO) == 1

    /// `text` wrapped in the escape codes for `style` when `enabled`, unchanged otherwise.
    static func styled(_ text: String, _ style: Style?, enabled: Bool = colorsStdout) -> String {
        guard enabled, let style, !text.isEmpty else { return text }
        return "\u{1B}[\(style.rawValue)m\(text)\u{1B}[0m"
    }

    /// Writes one line to standard output.
    static func out(_ line: String) {
        print(line)
    }

    /// Writes out what standard output has buffered (so that it shows before later progress
    /// lines on standard error when both go to the same file or pipe).
    static func flush() {
        fflush(nil)
    }

    /// Writes `error: message` to standard error.
    static func error(_ message: String) {
        let prefix = styled("error:", .red, enabled: colorsStderr)
        FileHandle.standardError.write(Data("\(prefix) \(message)\n".utf8))
    }

    /// Writes a note to standard error (progress and hints that are not the command's output).
    static func note(_ message: String) {
        FileHandle.standardError.write(Data("\(message)\n".utf8))
    }
}
