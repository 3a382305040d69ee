import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A test server's process (Ceph's gateway script, moto, the request recorder), started with
/// `posix_spawn` so that it inherits nothing but its three standard streams.
///
/// Foundation's `Process` on Linux learns that a child has ended when a socket pair's far end,
/// given to that child, closes. It closes the other descriptors in the child from a list made
/// just before spawning, so a child started at the same moment on another thread can inherit
/// that far end; a server living as long as the test process then keeps a short command's
/// `waitUntilExit()` waiting forever. These children close every descriptor from 3 up as they
/// start (`posix_spawn_file_actions_addclosefrom_np`), so they hold no other child's socket,
/// and their signal mask and dispositions are reset (a Dispatch thread blocks `SIGTERM`, and a
/// child would inherit that: its `trap` would never run).
public final class SpawnedChild: Sendable {
    /// The child's process id.
    public let pid: pid_t
    /// The write end of the child's standard input (closed by ``closeInput()``), or -1.
    private let input: Mutex<Int32>
    /// The child's wait status, once reaped.
    private let status = Mutex<Int32?>(nil)

    /// Why the child could not start.
    public struct SpawnError: Error, CustomStringConvertible {
        public let code: Int32
        public var description: String { "posix_spawn failed: \(String(cString: strerror(code)))" }
    }

    /// Starts `arguments` (the first is looked up on `PATH`, as `/usr/bin/env` would) with a pipe
    /// as standard input when `pipedInput` (else `/dev/null`), and standard output and error
    /// appended to `outputPath` (else `/dev/null`); `errorPath` sends standard error elsewhere.
    public init(_ arguments: [String], pipedInput: Bool, outputPath: String?, errorPath: String? = nil) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var pipeEnds: [Int32] = [-1, -1]
        if pipedInput {
            guard pipe(&pipeEnds) == 0 else { throw SpawnError(code: errno) }
            // Our write end must reach no other child (the read end goes only to this one).
            _ = fcntl(pipeEnds[1], F_SETFD, FD_CLOEXEC)
            posix_spawn_file_actions_adddup2(&actions, pipeEnds[0], 0)
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        posix_spawn_file_actions_addopen(&actions, 1, outputPath ?? "/dev/null", O_WRONLY | O_CREAT | O_APPEND, 0o644)
        if let errorPath {
            posix_spawn_file_actions_addopen(&actions, 2, errorPath, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        } else {
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        }
        try Self.closeInheritedDescriptors(&actions)

        var attributes = posix_spawnattr_t()
        Self.initializeAttributes(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }

        let argv = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        let envp = ProcessInfo.processInfo.environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in envp { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawnp(&pid, arguments[0], &actions, &attributes, argv, envp)
        if pipedInput { close(pipeEnds[0]) }
        guard spawned == 0 else {
            if pipedInput { close(pipeEnds[1]) }
            throw SpawnError(code: spawned)
        }
        self.pid = pid
        self.input = Mutex(pipedInput ? pipeEnds[1] : -1)
    }

    deinit {
        closeInput()
    }

    /// Attributes for a child in a process group of its own (its id the child's pid), with no
    /// blocked signals and default dispositions for the signals a test process's threads block
    /// or ignore. Destroy them with `posix_spawnattr_destroy`.
    public static func initializeAttributes(_ attributes: inout posix_spawnattr_t) {
        posix_spawnattr_init(&attributes)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        posix_spawnattr_setpgroup(&attributes, 0)
        var signals = sigset_t()
        sigemptyset(&signals)
        posix_spawnattr_setsigmask(&attributes, &signals)
        for signal in [SIGTERM, SIGINT, SIGHUP, SIGPIPE, SIGCHLD, SIGQUIT, SIGUSR1, SIGUSR2] { sigaddset(&signals, signal) }
        posix_spawnattr_setsigdefault(&attributes, &signals)
    }

    /// Adds to `actions`: close every descriptor from 3 up in the child, as it starts.
    public static func closeInheritedDescriptors(_ actions: inout posix_spawn_file_actions_t) throws {
        guard let closeFrom = addCloseFrom else { throw SpawnError(code: ENOSYS) }
        let result = closeFrom(&actions, 3)
        guard result == 0 else { throw SpawnError(code: result) }
    }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), which Swift's Glibc
    /// module does not declare (it is a GNU extension), looked up by name.
    private static let addCloseFrom: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, Int32) -> Int32)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, Int32) -> Int32).self)
    }()

    /// Whether the child still runs (reaps it once it has ended).
    public var isRunning: Bool {
        status.withLock { status in
            guard status == nil else { return false }
            var raw: Int32 = 0
            let reaped = waitpid(pid, &raw, WNOHANG)
            if reaped == pid { status = raw }
            if reaped < 0 && errno == ECHILD { status = -1 }
            return status == nil
        }
    }

    /// Closes the child's standard input (servers that read it end at its end).
    public func closeInput() {
        input.withLock { fd in
            if fd >= 0 { close(fd) }
            fd = -1
        }
    }

    /// Sends `SIGTERM`.
    public func terminate() {
        if isRunning { kill(pid, SIGTERM) }
    }

    /// Waits for the child to end (a blocking wait: call it off the cooperative pool).
    public func waitUntilExit() {
        status.withLock { status in
            guard status == nil else { return }
            var raw: Int32 = 0
            while true {
                let reaped = waitpid(pid, &raw, 0)
                if reaped == pid { status = raw; return }
                if reaped < 0 && errno != EINTR { status = -1; return }
            }
        }
    }
}
