import Foundation

/// An S3-compatible server for tests: moto's server mode, started on 127.0.0.1 on a free port by
/// `scripts/moto-s3.py`, checking AWS Signature Version 4 with an access key it creates, holding
/// the objects given to ``start(objects:hangGuard:)``, and logging every request (``requests()``).
///
/// It needs Python with moto's server mode: `.build-s3-venv` (made by `make setup`, through
/// `scripts/s3-venv.sh`), else `python3` on the `PATH`, or the interpreter named by
/// `WEBIMAGE_S3_TEST_PYTHON`. ``unavailableReason`` says why it cannot run; tests skip then.
/// The server ends when ``stop()`` closes its standard input (or the test process exits).
public final class MotoS3Server: Sendable {
    /// The port on 127.0.0.1.
    public let port: Int
    /// The access key id moto created.
    public let accessKeyID: String
    /// Its secret.
    public let secretAccessKey: String
    /// `http://127.0.0.1:<port>`.
    public var endpoint: URL { URL(string: "http://127.0.0.1:\(port)") ?? URL(fileURLWithPath: "/") }

    private let process: SpawnedChild
    private let directory: URL

    private init(port: Int, accessKeyID: String, secretAccessKey: String, process: SpawnedChild, directory: URL) {
        self.port = port
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.process = process
        self.directory = directory
    }

    /// The project's root (this file is `Sources/WebImageTesting/MotoS3Server.swift`).
    static let projectRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The Python interpreter to use.
    static let python: String = {
        if let named = ProcessInfo.processInfo.environment["WEBIMAGE_S3_TEST_PYTHON"], !named.isEmpty { return named }
        let venv = projectRoot.appendingPathComponent(".build-s3-venv/bin/python").path
        return FileManager.default.isExecutableFile(atPath: venv) ? venv : "python3"
    }()

    /// Why the server cannot run here (no Python, or moto's server mode missing), or `nil`.
    public static let unavailableReason: String? = {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [python, "-c", "import botocore, moto.server, werkzeug"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
            process.waitUntilExit()
        } catch {
            return "cannot run \(python): \(error)"
        }
        guard process.terminationStatus == 0 else {
            return "\(python) cannot import moto's server mode and botocore: run `make setup` (scripts/s3-venv.sh)"
        }
        return nil
    }()

    /// Starts a server holding `objects` (bucket, key, bytes); waits until it is ready (at most
    /// `hangGuard` seconds, a guard against a hang, not a timing).
    public static func start(objects: [(bucket: String, key: String, data: Data)], hangGuard: Double = 300) async throws -> MotoS3Server {
        if let unavailableReason { throw MotoUnavailable(reason: unavailableReason) }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("moto-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var arguments = [projectRoot.appendingPathComponent("scripts/moto-s3.py").path, directory.appendingPathComponent("ready.json").path,
            directory.appendingPathComponent("requests.log").path]
        for (index, object) in objects.enumerated() {
            let file = directory.appendingPathComponent("object-\(index)")
            try object.data.write(to: file)
            arguments.append("\(object.bucket)/\(object.key)=\(file.path)")
        }
        let errorLog = directory.appendingPathComponent("stderr.log")
        _ = FileManager.default.createFile(atPath: errorLog.path, contents: nil)
        let process = try SpawnedChild([python] + arguments, pipedInput: true, outputPath: nil, errorPath: errorLog.path)
        let readyFile = directory.appendingPathComponent("ready.json")
        let deadline = ContinuousClock.now + .seconds(hangGuard)
        while !FileManager.default.fileExists(atPath: readyFile.path) {
            guard process.isRunning, ContinuousClock.now < deadline else {
                let errors = (try? String(contentsOf: directory.appendingPathComponent("stderr.log"), encoding: .utf8)) ?? ""
                if process.isRunning { process.terminate() }
                throw MotoUnavailable(reason: "moto did not start: \(errors.suffix(2000))")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        struct Ready: Decodable {
            let port: Int
            let accessKeyID: String
            let secretAccessKey: String
        }
        let ready = try JSONDecoder().decode(Ready.self, from: Data(contentsOf: readyFile))
        return MotoS3Server(
            port: ready.port, accessKeyID: ready.accessKeyID, secretAccessKey: ready.secretAccessKey, process: process,
            directory: directory)
    }

    /// The requests the server received since it became ready, one `"METHOD /path?query"` each,
    /// in order. A request a client has its answer to is always listed.
    public func requests() -> [String] {
        let text = (try? String(contentsOf: directory.appendingPathComponent("requests.log"), encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map(String.init)
    }

    /// Stops the server and removes its files: closes its standard input, and terminates it if
    /// it is still running 30 seconds later (a hang guard).
    public func stop() {
        process.closeInput()
        let deadline = ContinuousClock.now + .seconds(30)
        while process.isRunning, ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.05) }
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: directory)
    }
}

/// moto's server cannot run: the reason, for a test to print when it skips.
public struct MotoUnavailable: Error, CustomStringConvertible {
    /// Why, in words.
    public let reason: String
    /// The reason.
    public var description: String { reason }
}
