import Foundation

/// The S3 servers the S3 suites run against.
public enum S3TestBackend: String, Sendable, CaseIterable {
    /// moto's server mode (``MotoS3Server``): a Python mock of S3, quick to start.
    case moto
    /// Ceph's RADOS Gateway (``CephRGWServer``): a real, distributed S3.
    case ceph

    /// Why this backend cannot run here, or `nil`. `WEBIMAGE_S3_TEST_BACKENDS` (a comma-separated
    /// list, such as `moto`) turns the others off.
    public var unavailableReason: String? {
        if let chosen = ProcessInfo.processInfo.environment["WEBIMAGE_S3_TEST_BACKENDS"], !chosen.isEmpty,
            !chosen.split(separator: ",").contains(Substring(rawValue))
        {
            return "WEBIMAGE_S3_TEST_BACKENDS=\(chosen) leaves it out"
        }
        switch self {
        case .moto: return MotoS3Server.unavailableReason
        case .ceph: return CephRGWServer.unavailableReason
        }
    }

    /// The backends that can run here, for a parameterised test; prints, once per `suite`, why
    /// each other one is skipped.
    public static func available(for suite: String) -> [S3TestBackend] {
        allCases.filter { backend in
            guard let reason = backend.unavailableReason else { return true }
            SkipNotices.once("\(suite) \(backend)") { print("\(suite): the \(backend) variants are skipped: \(reason)") }
            return false
        }
    }
}

/// An S3 endpoint for one test, whichever the backend: its address, the keys of a user allowed
/// everything in it, the objects it was given, and the requests it received (``requests()``).
///
/// For moto it is a server of its own. For Ceph it is a user in a tenant of its own on the
/// process's gateway (``CephRGWServer/shared(hangGuard:)``), reached through a relay
/// (`scripts/s3-request-recorder.py`) that logs each request line before the gateway sees it;
/// ``stop()`` stops the relay, so the endpoint is then unreachable, as a stopped moto is.
public final class S3TestEndpoint: Sendable {
    /// The server behind it.
    public let backend: S3TestBackend
    /// `http://127.0.0.1:<port>`.
    public let endpoint: URL
    /// The user's access key id.
    public let accessKeyID: String
    /// Its secret.
    public let secretAccessKey: String

    private let moto: MotoS3Server?
    private let recorder: Recorder?

    private init(backend: S3TestBackend, endpoint: URL, accessKeyID: String, secretAccessKey: String, moto: MotoS3Server?, recorder: Recorder?) {
        self.backend = backend
        self.endpoint = endpoint
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.moto = moto
        self.recorder = recorder
    }

    /// Starts an endpoint on `backend` holding `objects` (bucket, key, bytes; every bucket named
    /// is made); waits at most `hangGuard` seconds (a guard against a hang, not a timing).
    public static func start(
        _ backend: S3TestBackend, objects: [(bucket: String, key: String, data: Data)], hangGuard: Double = 300
    ) async throws -> S3TestEndpoint {
        switch backend {
        case .moto:
            let server = try await MotoS3Server.start(objects: objects, hangGuard: hangGuard)
            return S3TestEndpoint(
                backend: backend, endpoint: server.endpoint, accessKeyID: server.accessKeyID, secretAccessKey: server.secretAccessKey,
                moto: server, recorder: nil)
        case .ceph:
            let cluster = try await CephRGWServer.shared(hangGuard: hangGuard)
            let keys = try await cluster.makeUser(objects: objects)
            let recorder = try await Recorder.start(upstream: cluster.endpoint, hangGuard: hangGuard)
            return S3TestEndpoint(
                backend: backend, endpoint: URL(string: "http://127.0.0.1:\(recorder.port)") ?? cluster.endpoint,
                accessKeyID: keys.accessKeyID, secretAccessKey: keys.secretAccessKey, moto: nil, recorder: recorder)
        }
    }

    /// The requests received since the endpoint was ready, one `"METHOD /path?query"` each (the
    /// target as the client sent it), in order. A request a client has its answer to is listed.
    public func requests() -> [String] {
        if let moto { return moto.requests() }
        return recorder?.requests() ?? []
    }

    /// Stops it (moto's server, or the relay in front of the gateway) and removes its files.
    public func stop() {
        moto?.stop()
        recorder?.stop()
    }

    /// `scripts/s3-request-recorder.py` in front of the gateway.
    final class Recorder: Sendable {
        let port: Int
        private let process: SpawnedChild
        private let directory: URL

        private init(port: Int, process: SpawnedChild, directory: URL) {
            self.port = port
            self.process = process
            self.directory = directory
        }

        static func start(upstream: URL, hangGuard: Double) async throws -> Recorder {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("s3-recorder-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let ready = directory.appendingPathComponent("ready.json"), log = directory.appendingPathComponent("requests.log")
            _ = FileManager.default.createFile(atPath: log.path, contents: nil)
            let errors = directory.appendingPathComponent("stderr.log")
            _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
            let process = try SpawnedChild(
                [
                    "python3", MotoS3Server.projectRoot.appendingPathComponent("scripts/s3-request-recorder.py").path,
                    "\(upstream.host ?? "127.0.0.1"):\(upstream.port ?? 80)", ready.path, log.path,
                ], pipedInput: true, outputPath: nil, errorPath: errors.path)
            let deadline = ContinuousClock.now + .seconds(hangGuard)
            while !FileManager.default.fileExists(atPath: ready.path) {
                guard process.isRunning, ContinuousClock.now < deadline else {
                    if process.isRunning { process.terminate() }
                    throw CephRGWError(reason: "the request recorder did not start: \((try? String(contentsOf: errors, encoding: .utf8)) ?? "")")
                }
                try await Task.sleep(for: .milliseconds(20))
            }
            struct Ready: Decodable { let port: Int }
            let port = try JSONDecoder().decode(Ready.self, from: Data(contentsOf: ready)).port
            return Recorder(port: port, process: process, directory: directory)
        }

        func requests() -> [String] {
            let text = (try? String(contentsOf: directory.appendingPathComponent("requests.log"), encoding: .utf8)) ?? ""
            return text.split(separator: "\n").map(String.init)
        }

        /// Closes its standard input; terminates it if it still runs 30 seconds later (a hang
        /// guard).
        func stop() {
            process.closeInput()
            let deadline = ContinuousClock.now + .seconds(30)
            while process.isRunning, ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.02) }
            if process.isRunning {
                process.terminate()
                process.waitUntilExit()
            }
            try? FileManager.default.removeItem(at: directory)
        }
    }
}

/// Prints each skip notice once per process.
enum SkipNotices {
    // @unchecked Sendable: `printed` is only read and written with `lock` held.
    private final class Printed: @unchecked Sendable {
        let lock = NSLock()
        var keys: Set<String> = []
    }

    private static let printed = Printed()

    static func once(_ key: String, _ body: () -> Void) {
        let first = printed.lock.withLock { printed.keys.insert(key).inserted }
        if first { body() }
    }
}
