import Foundation

/// Runs the built `webimage` binary and captures what it prints.
enum CLIRunner {
    /// The result of one run.
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// The `webimage` executable SwiftPM built into the same directory as the test bundle
    /// (`.build/<config>/`): on Linux the bundle is an executable there, on macOS a `.xctest`
    /// directory there.
    static let binary: URL? = {
        var directories: [URL] = []
        if let executable = Bundle.main.executableURL { directories.append(executable.deletingLastPathComponent()) }
        directories.append(Bundle.main.bundleURL)
        directories.append(Bundle.main.bundleURL.deletingLastPathComponent())
        if let first = CommandLine.arguments.first {
            directories.append(URL(fileURLWithPath: first).deletingLastPathComponent())
        }
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            directories.append(bundle.bundleURL.deletingLastPathComponent())
        }
        return directories.lazy.map { $0.appendingPathComponent("webimage") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }()

    /// The project root (the tool's working directory in the tests, so `../shared/corpus` works).
    static let projectRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// Runs `webimage arguments…` with extra environment variables and waits for it on a thread
    /// of its own (``detached(_:)``); output goes through files so that a large output can never
    /// block the child on a full pipe.
    static func run(_ arguments: [String], environment: [String: String] = [:]) async throws -> Result {
        try await detached { try runBlocking(arguments, environment: environment) }
    }

    /// ``run(_:environment:)`` on the calling thread (blocks it until the child ends).
    static func runBlocking(_ arguments: [String], environment: [String: String] = [:]) throws -> Result {
        guard let binary else { throw CLIError.binaryNotFound }
        return try launch(binary, arguments, environment: environment)
    }

    /// Runs `executable arguments…` from the project root with the test's environment plus
    /// `environment` (minus `NO_COLOR` unless given), `standardInput` as its input, and
    /// `afterStart` called once the child runs (to feed its input); waits for it to end.
    static func launch(
        _ executable: URL, _ arguments: [String], environment: [String: String] = [:],
        standardInput: Any = FileHandle.nullDevice, afterStart: () throws -> Void = {}
    ) throws -> Result {
        let scratch = try temporaryDirectory()
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
        process.currentDirectoryURL = projectRoot
        var env = ProcessInfo.processInfo.environment
        env.removeValue(forKey: "NO_COLOR")
        for (key, value) in environment { env[key] = value }
        process.environment = env
        process.standardInput = standardInput
        process.standardOutput = outHandle
        process.standardError = errHandle
        try process.run()
        try afterStart()
        // Hang detection only (not a timing assertion): a run that outlives the bound is killed.
        let deadline = ContinuousClock.now + .seconds(120)
        while process.isRunning {
            if ContinuousClock.now > deadline {
                process.terminate()
                process.waitUntilExit()
                throw CLIError.timedOut(arguments)
            }
            Thread.sleep(forTimeInterval: 0.01)
        }
        process.waitUntilExit()
        try outHandle.close()
        try errHandle.close()
        return Result(
            status: process.terminationStatus,
            stdout: String(decoding: try Data(contentsOf: outURL), as: UTF8.self),
            stderr: String(decoding: try Data(contentsOf: errURL), as: UTF8.self))
    }

    /// Runs `work` (which waits for a child synchronously) on a thread of its own: a blocked
    /// thread of the shared concurrency pool would starve the in-process server the child
    /// talks to, and every other async test.
    static func detached(_ work: @escaping @Sendable () throws -> Result) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Swift.Result { try work() }) }.start()
        }
    }

    /// A fresh temporary directory for a test's outputs.
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-cli-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    enum CLIError: Error, CustomStringConvertible {
        case binaryNotFound
        case timedOut([String])

        var description: String {
            switch self {
            case .binaryNotFound: "the webimage binary was not found next to the test bundle (build it first)"
            case .timedOut(let arguments): "webimage \(arguments.joined(separator: " ")) did not finish within 120 s"
            }
        }
    }
}
