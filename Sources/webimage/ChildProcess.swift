import Foundation

/// Runs this same `webimage` binary as a child process (the demo's third pass), on a thread of
/// its own so that waiting never blocks the concurrency pool serving the in-process HTTP server.
enum ChildProcess {
    /// What a child run printed and how it ended.
    struct Outcome {
        var status: Int32
        var stdout: String
        var stderr: String
        /// Why the child could not be started, if it could not.
        var launchError: String?
    }

    /// The running executable: `/proc/self/exe` on Linux, else the bundle's executable, else argv[0].
    static func executable() -> URL? {
        #if os(Linux)
        if let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            return URL(fileURLWithPath: path)
        }
        #endif
        if let url = Bundle.main.executableURL { return url }
        return CommandLine.arguments.first.map { URL(fileURLWithPath: $0) }
    }

    /// Runs `webimage arguments…`; standard output and error go through files in `scratch`
    /// (removed afterwards), so a large output can never block the child on a full pipe.
    static func run(_ arguments: [String], scratch: URL) async -> Outcome {
        await withCheckedContinuation { continuation in
            Thread {
                continuation.resume(returning: runBlocking(arguments, scratch: scratch))
            }.start()
        }
    }

    private static func runBlocking(_ arguments: [String], scratch: URL) -> Outcome {
        guard let binary = executable() else {
            return Outcome(status: -1, stdout: "", stderr: "", launchError: "cannot find the webimage executable")
        }
        let tag = UUID().uuidString
        let outURL = scratch.appendingPathComponent(".child-\(tag).out")
        let errURL = scratch.appendingPathComponent(".child-\(tag).err")
        defer {
            try? FileManager.default.removeItem(at: outURL)
            try? FileManager.default.removeItem(at: errURL)
        }
        do {
            _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
            _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
            let outHandle = try FileHandle(forWritingTo: outURL)
            let errHandle = try FileHandle(forWritingTo: errURL)
            let process = Process()
            process.executableURL = binary
            process.arguments = arguments
            process.standardOutput = outHandle
            process.standardError = errHandle
            process.standardInput = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
            try? outHandle.close()
            try? errHandle.close()
            return Outcome(
                status: process.terminationStatus,
                stdout: String(decoding: (try? Data(contentsOf: outURL)) ?? Data(), as: UTF8.self),
                stderr: String(decoding: (try? Data(contentsOf: errURL)) ?? Data(), as: UTF8.self))
        } catch {
            return Outcome(status: -1, stdout: "", stderr: "", launchError: error.localizedDescription)
        }
    }
}
