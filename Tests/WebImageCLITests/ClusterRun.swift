import Foundation
import WebImageTesting

#if canImport(Glibc)
    import Glibc
#endif

/// Runs a cluster script (`scripts/cluster-demo.sh`, `scripts/cluster-hosts.sh`) in its short
/// mode, in a process group of its own: every child (the instances, nginx, the origin, the load)
/// stays in that group, so a hang guard can end all of them with one signal.
enum ClusterRun {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
        var timedOut: Bool
    }

    static let projectRoot = CLIRunner.projectRoot

    /// nginx from Debian (`make setup`).
    static var nginx: String? {
        ["/usr/sbin/nginx", "/usr/bin/nginx"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// The short run of `make cluster-demo`.
    static func run(binary: URL, nginx: String) async throws -> Result {
        try await run(
            script: "scripts/cluster-demo.sh", binary: binary, nginx: nginx,
            environment: ["CLUSTER_SHORT": "1", "CLUSTER_REQUESTS": nil, "CLUSTER_REJOIN_REQUESTS": nil])
    }

    /// Runs `script` (relative to the project root) with `WEBIMAGE_BIN` set to `binary`, nginx's
    /// folder on `PATH`, and `environment` over the test process's (a `nil` value removes the
    /// variable). Past `hangGuard`, the whole group is killed and the result says so.
    static func run(
        script: String, binary: URL, nginx: String, environment: [String: String?], hangGuard: Duration = .seconds(480)
    ) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            Thread {
                continuation.resume(with: Swift.Result {
                    try runBlocking(script: script, binary: binary, nginx: nginx, overrides: environment, hangGuard: hangGuard)
                })
            }.start()
        }
    }

    static func runBlocking(
        script: String, binary: URL, nginx: String, overrides: [String: String?], hangGuard: Duration
    ) throws -> Result {
        let scratch = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let outPath = scratch.appendingPathComponent("stdout").path
        let errPath = scratch.appendingPathComponent("stderr").path

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        // Nothing inherited but the three streams, and a new group whose id is the child's pid, no
        // blocked signals and default dispositions (the test process's threads block or ignore
        // some, and a child would inherit that: the script's children would then ignore the
        // SIGTERM that ends them).
        try SpawnedChild.closeInheritedDescriptors(&actions)
        var attributes = posix_spawnattr_t()
        SpawnedChild.initializeAttributes(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }

        let words: [String] = ["/bin/bash", projectRoot.appendingPathComponent(script).path]
        let argv = words.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var environment = ProcessInfo.processInfo.environment
        environment["WEBIMAGE_BIN"] = binary.path
        environment["KEEP"] = "0"
        for (name, value) in overrides { environment[name] = value }
        environment["PATH"] = (environment["PATH"].map { $0 + ":" } ?? "") + URL(fileURLWithPath: nginx).deletingLastPathComponent().path
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in envp { free(pointer) } }

        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, "/bin/bash", &actions, &attributes, argv, envp)
        guard spawned == 0 else { throw SpawnError(code: spawned) }

        // Hang guard only (the runs take a minute or two): past it, the whole group is killed.
        let deadline = ContinuousClock.now + hangGuard
        var timedOut = false
        while !hasExited(pid) {
            if ContinuousClock.now > deadline {
                timedOut = true
                break
            }
            usleep(20_000)
        }
        if timedOut {
            // SIGTERM first, so the script's trap removes what it made outside the group
            // (cluster-hosts.sh: network namespaces); SIGKILL below if it has not ended in 60 s.
            kill(-pid, SIGTERM)
            let grace = ContinuousClock.now + .seconds(60)
            while !hasExited(pid) && ContinuousClock.now < grace { usleep(20_000) }
        }
        // The script's trap has stopped its children; whatever is left of the group goes now,
        // while the unreaped leader keeps the group id from being reused.
        kill(-pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let exitStatus: Int32 = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        return Result(
            status: exitStatus,
            stdout: String(decoding: (try? Data(contentsOf: URL(fileURLWithPath: outPath))) ?? Data(), as: UTF8.self),
            stderr: String(decoding: (try? Data(contentsOf: URL(fileURLWithPath: errPath))) ?? Data(), as: UTF8.self),
            timedOut: timedOut)
    }

    /// Whether the child has ended, without reaping it (its state in /proc is Z, a zombie).
    static func hasExited(_ pid: pid_t) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")")
        else { return true }
        return stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).hasPrefix("Z")
    }

    struct SpawnError: Error, CustomStringConvertible {
        var code: Int32
        var description: String { "posix_spawn failed: \(String(cString: strerror(code)))" }
    }
}
