import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The scale-out front (SPEC V-10, issue #15): the nginx configuration in `deploy/nginx/`, and
/// the short run of `make cluster-demo` — three `webimage serve` instances and nginx on
/// loopback, 300 requests, one instance SIGKILLed after request 20 has completed, restarted,
/// and seen serving again.
@Suite(.timeLimit(.minutes(10))) struct ClusterTests {
    /// The directives the issue names, read from the shipped file (comments stripped).
    @Test func nginxConfigurationHasTheScaleOutDirectives() throws {
        let text = try String(contentsOf: ClusterRun.projectRoot.appendingPathComponent("deploy/nginx/nginx.conf"), encoding: .utf8)
        let lines = text.split(separator: "\n").map { line -> String in
            let code = line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            return code.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        }.filter { !$0.isEmpty }
        func has(_ directive: String) -> Bool { lines.contains(directive) }

        #expect(has("hash $request_uri consistent;"))
        // The cache key: the URI plus the negotiated format bucket, never the raw Accept header.
        #expect(has("proxy_cache_key \"$request_uri|$webimage_format\";"))
        #expect(!lines.contains { $0.hasPrefix("proxy_cache_key") && $0.contains("$http_accept") })
        #expect(has("map $http_accept $webimage_format {"))
        #expect(has("\"~*image/avif\" avif;") && has("\"~*image/webp\" webp;") && has("default other;"))
        let avif = lines.firstIndex(of: "\"~*image/avif\" avif;") ?? 0, webp = lines.firstIndex(of: "\"~*image/webp\" webp;") ?? 0
        #expect(avif < webp, "the first matching regex wins: AVIF must be tried before WebP")
        // What the instance renders matches the key it is stored under.
        #expect(has("proxy_set_header Accept $webimage_accept;"))
        #expect(has("proxy_ignore_headers Vary;"))
        #expect(has("proxy_cache webimage;"))
        #expect(has("proxy_cache_lock on;"))
        let stale = (lines.first { $0.hasPrefix("proxy_cache_use_stale ") } ?? "").dropLast().split(separator: " ")
        for condition in ["error", "timeout", "http_502", "http_503"] {
            #expect(stale.contains(Substring(condition)), "proxy_cache_use_stale \(condition)")
        }
        #expect(has("proxy_next_upstream error timeout http_502 http_503;"))
        // Keep-alive to the upstreams.
        #expect(lines.contains { $0.hasPrefix("keepalive ") && Int($0.dropFirst("keepalive ".count).dropLast()) ?? 0 > 0 })
        #expect(has("proxy_http_version 1.1;"))
        #expect(has("proxy_set_header Connection \"\";"))
    }

    @Test func shortClusterRunFailsOverAndRejoins() async throws {
        guard let nginx = ClusterRun.nginx else {
            Issue.record("nginx is not installed: `make setup` installs it (TEST_PACKAGES in scripts/setup.sh)")
            return
        }
        guard let binary = CLIRunner.binary else {
            Issue.record("the webimage binary was not found next to the test bundle (build with --build-tests)")
            return
        }
        for tool in ["/usr/bin/curl", "/usr/bin/pgrep"] where !FileManager.default.isExecutableFile(atPath: tool) {
            Issue.record("\(tool) is not installed: `make setup` installs it (TEST_PACKAGES in scripts/setup.sh)")
            return
        }
        let result = try await ClusterRun.run(binary: binary, nginx: nginx)
        let context = Comment(rawValue: "stdout:\n\(result.stdout)\nstderr:\n\(result.stderr)")
        #expect(!result.timedOut, context)
        #expect(result.status == 0, context)

        // Exactly one line on standard output, of the documented shape.
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(lines.count == 1 && result.stdout.hasSuffix("\n"), context)
        let pattern = /^cluster: requests=(\d+) errors=(\d+) renders=(\d+) hits=(\d+) p50=(\d+\.\d)ms p99=(\d+\.\d)ms$/
        let match = try #require(try pattern.wholeMatch(in: String(lines.first ?? "")), context)
        let (requests, errors, renders, hits) = (Int(match.1)!, Int(match.2)!, Int(match.3)!, Int(match.4)!)
        #expect(requests == 300, context)
        #expect(errors == 0, "no client saw an error across the SIGKILL: \(context)")
        // 72 URLs × 3 format buckets = 216 cache keys (the four Accept spellings sent collapse into
        // three buckets). Each renders once, give or take the renders the killed instance did
        // after its counter was read, and those it was doing when killed (done again elsewhere).
        #expect((200...226).contains(renders), "renders=\(renders): one per URL and format bucket")
        // nginx answers the rest from its cache: 300 − 216 = 84 when every key goes upstream once
        // (keyed on the raw Accept header it would be 300 − 288 = 12).
        #expect((60...100).contains(hits), "hits=\(hits)")
        #expect(Double(match.5)! <= Double(match.6)!)

        // The kill happened on an event, requests failed over, and the restarted one rejoined.
        #expect(result.stderr.contains("SIGKILL sent to instance pid from"), context)
        #expect(result.stderr.contains("after 20 requests had completed"), context)
        let retried = try #require(try /(\d+) requests were retried on another instance by nginx/.firstMatch(in: result.stderr), context)
        #expect(Int(retried.1)! >= 1, "nginx retried the requests the killed instance could not answer: \(context)")
        let rejoined = try #require(try /rejoin: the restarted instance \S+ served (\d+) requests/.firstMatch(in: result.stderr), context)
        #expect(Int(rejoined.1)! >= 1, context)
    }
}

/// Runs `scripts/cluster-demo.sh` in its short mode, in a process group of its own: every child
/// (the instances, nginx, the origin, the load) stays in that group, so a hang guard can end all
/// of them with one signal.
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

    static func run(binary: URL, nginx: String) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Swift.Result { try runBlocking(binary: binary, nginx: nginx) }) }.start()
        }
    }

    static func runBlocking(binary: URL, nginx: String) throws -> Result {
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
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // A new group whose id is the child's pid; no blocked signals and default dispositions
        // (the test process's threads block or ignore some, and a child would inherit that: the
        // script's children would then ignore the SIGTERM that ends them).
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        posix_spawnattr_setpgroup(&attributes, 0)
        var signals = sigset_t()
        sigemptyset(&signals)
        posix_spawnattr_setsigmask(&attributes, &signals)
        for signal in [SIGTERM, SIGINT, SIGHUP, SIGPIPE, SIGCHLD, SIGQUIT, SIGUSR1, SIGUSR2] { sigaddset(&signals, signal) }
        posix_spawnattr_setsigdefault(&attributes, &signals)

        let script = projectRoot.appendingPathComponent("scripts/cluster-demo.sh").path
        let words: [String] = ["/bin/bash", script]
        let argv = words.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var environment = ProcessInfo.processInfo.environment
        environment["CLUSTER_SHORT"] = "1"
        environment["WEBIMAGE_BIN"] = binary.path
        environment["KEEP"] = "0"
        environment["CLUSTER_REQUESTS"] = nil
        environment["CLUSTER_REJOIN_REQUESTS"] = nil
        environment["PATH"] = (environment["PATH"].map { $0 + ":" } ?? "") + URL(fileURLWithPath: nginx).deletingLastPathComponent().path
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in envp { free(pointer) } }

        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, "/bin/bash", &actions, &attributes, argv, envp)
        guard spawned == 0 else { throw SpawnError(code: spawned) }

        // Hang guard only (the run takes well under a minute): past it, the whole group is killed.
        let deadline = ContinuousClock.now + .seconds(480)
        var timedOut = false
        while !hasExited(pid) {
            if ContinuousClock.now > deadline {
                timedOut = true
                break
            }
            usleep(20_000)
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
