import Foundation
import Logging

/// The tool's log output: the library logs through swift-log, and a command-line tool should
/// show its users warnings and errors, not the library's informational lines (which would also
/// break into the progress bar). `WEBIMAGE_LOG_LEVEL` (trace, debug, info, notice, warning,
/// error, critical) chooses another level; logs go to standard error.
enum ToolLogging {
    /// The level used when `WEBIMAGE_LOG_LEVEL` is unset or not a level name.
    static let defaultLevel = Logger.Level.warning

    /// The level `environment` asks for.
    static func level(in environment: [String: String] = ProcessInfo.processInfo.environment) -> Logger.Level {
        environment["WEBIMAGE_LOG_LEVEL"].flatMap { Logger.Level(rawValue: $0.lowercased()) } ?? defaultLevel
    }

    /// Installs the standard-error handler at ``level(in:)``; called once, before any command runs.
    static func bootstrap() {
        let level = level()
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
    }
}
