import Foundation

/// A real S3 for tests: a throwaway single-node Ceph (one monitor, one `memstore` OSD) with its
/// RADOS Gateway on 127.0.0.1, started by `scripts/ceph-rgw.sh run` once per test process and
/// shared by every test of it (``shared(hangGuard:)``); it ends when the process does.
///
/// Tests do not share buckets through it: each ``S3TestEndpoint`` gets a user in a tenant of its
/// own (``makeUser(objects:)``), and the gateway resolves a bucket name in the requesting user's
/// tenant, so every test sees its own `images` and `results`.
///
/// It needs Debian's `ceph-mon`, `ceph-osd`, `radosgw` and `ceph-common` (`make setup-ceph`, or
/// `CEPH=1 bash scripts/setup.sh`); ``unavailableReason`` says why it cannot run.
public final class CephRGWServer: Sendable {
    /// The gateway's address, `http://127.0.0.1:<port>`.
    public let endpoint: URL
    /// The cluster's directory (its `ceph.conf`, data and logs).
    public let directory: String

    /// The script; its standard input's end (when the test process exits) stops the cluster.
    private let process: SpawnedChild

    private init(endpoint: URL, directory: String, process: SpawnedChild) {
        self.endpoint = endpoint
        self.directory = directory
        self.process = process
    }

    static let script = MotoS3Server.projectRoot.appendingPathComponent("scripts/ceph-rgw.sh").path

    /// Why the gateway cannot run here (its packages are not installed), or `nil`.
    public static let unavailableReason: String? = {
        let paths = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        for tool in ["ceph-mon", "ceph-osd", "radosgw", "radosgw-admin", "monmaptool", "ceph", "curl", "python3"] {
            let found = paths.contains { FileManager.default.isExecutableFile(atPath: "\($0)/\(tool)") }
            if !found {
                return "\(tool) is not installed: `make setup-ceph` installs Ceph's RADOS Gateway (ceph-mon ceph-osd radosgw ceph-common)"
            }
        }
        return nil
    }()

    /// The cluster of this process, started by the first caller (at most `hangGuard` seconds, a
    /// guard against a hang, not a timing); a failed start is reported to every caller.
    public static func shared(hangGuard: Double = 300) async throws -> CephRGWServer {
        try await Starter.instance.server(hangGuard: hangGuard)
    }

    private actor Starter {
        static let instance = Starter()
        private var started: Task<CephRGWServer, any Error>?

        func server(hangGuard: Double) async throws -> CephRGWServer {
            if let started { return try await started.value }
            let task = Task { try await CephRGWServer.start(hangGuard: hangGuard) }
            started = task
            return try await task.value
        }
    }

    private static func start(hangGuard: Double) async throws -> CephRGWServer {
        if let unavailableReason { throw MotoUnavailable(reason: unavailableReason) }
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("ceph-rgw-run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        let ready = work.appendingPathComponent("ready.env")
        let log = work.appendingPathComponent("run.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        // It lives as long as the test process: spawned so that it holds no other child's
        // descriptors (see ``SpawnedChild``).
        let process = try SpawnedChild(["bash", script, "run", "--ready", ready.path], pipedInput: true, outputPath: log.path)
        let deadline = ContinuousClock.now + .seconds(hangGuard)
        while !FileManager.default.fileExists(atPath: ready.path) {
            guard process.isRunning, ContinuousClock.now < deadline else {
                if process.isRunning { process.terminate() }
                let errors = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
                throw CephRGWError(reason: "the gateway did not start: \(errors.suffix(2000))")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        let settings = Self.settings(try String(contentsOf: ready, encoding: .utf8))
        // The script keeps its open log; the directory is not needed once it has started.
        try? FileManager.default.removeItem(at: work)
        guard let directory = settings["CEPH_RGW_DIR"], let endpoint = settings["CEPH_RGW_ENDPOINT"].flatMap(URL.init(string:)) else {
            throw CephRGWError(reason: "scripts/ceph-rgw.sh wrote no endpoint: \(settings)")
        }
        return CephRGWServer(endpoint: endpoint, directory: directory, process: process)
    }

    static func settings(_ text: String) -> [String: String] {
        var settings: [String: String] = [:]
        for line in text.split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            settings[String(line[..<equals])] = String(line[line.index(after: equals)...])
        }
        return settings
    }

    private static let tenants = TenantCounter()

    /// A user in a tenant of its own holding `objects` (bucket, key, bytes; every bucket named is
    /// made), uploaded with curl's SigV4 signing (not the code under test). Returns its keys.
    public func makeUser(objects: [(bucket: String, key: String, data: Data)]) async throws -> (accessKeyID: String, secretAccessKey: String) {
        let tenant = "t\(Self.tenants.next())"
        let files = FileManager.default.temporaryDirectory.appendingPathComponent("ceph-rgw-objects-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: files, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: files) }
        var arguments = [Self.script, "user", directory, tenant]
        for (index, object) in objects.enumerated() {
            let file = files.appendingPathComponent("object-\(index)")
            try object.data.write(to: file)
            arguments.append("\(object.bucket)/\(object.key)=\(file.path)")
        }
        let command = ["bash"] + arguments
        let result = try await onOwnThread { () throws -> (status: Int32, output: String) in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = command
            let output = Pipe()
            process.standardOutput = output
            process.standardError = output
            process.standardInput = FileHandle.nullDevice
            try process.run()
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return (process.terminationStatus, String(decoding: data, as: UTF8.self))
        }
        let settings = Self.settings(result.output)
        guard result.status == 0, let access = settings["AWS_ACCESS_KEY_ID"], let secret = settings["AWS_SECRET_ACCESS_KEY"] else {
            throw CephRGWError(reason: "scripts/ceph-rgw.sh user failed (\(result.status)): \(result.output.suffix(2000))")
        }
        return (access, secret)
    }
}

/// The gateway could not start or make a user: the reason, in words.
public struct CephRGWError: Error, CustomStringConvertible {
    /// Why, in words.
    public let reason: String
    /// The reason.
    public var description: String { reason }
}

/// Numbers the tenants of one process.
// @unchecked Sendable: `value` is only read and written with `lock` held.
final class TenantCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0

    func next() -> Int {
        lock.withLock {
            value += 1
            return value
        }
    }
}
