import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Keeps codec libraries' own diagnostics off the process's standard error (SPEC R-4): an
/// opt-in for the owner of the process — a command-line tool, a server — since it changes
/// process-wide state.
///
/// What each codec library does with its diagnostics, and how this library handles it:
/// - **libtiff**: its own per-handle handler API (`TIFFOpenOptionsSetErrorHandlerExtR`): the
///   message becomes the `badImageData` reason, nothing is printed (always on, no opt-in).
/// - **libjxl 0.7** (as Debian builds it) prints lines such as `./lib/jxl/decode.cc:990:
///   invalid signature` with `fprintf(stderr, …)` whenever it meets a damaged file, and has no
///   log-callback API to turn that off. Only replacing C's `stderr` stream catches them: that
///   is what ``install(_:)`` does.
/// - libspng, libwebp, giflib, libturbojpeg, libavif/dav1d, libheif, librsvg and poppler print
///   nothing for the damaged files tried (each checked with damaged files through this
///   library).
///
/// ``install(_:)`` replaces the C library's `stderr` stream (the `FILE *`, not file
/// descriptor 2) with a pipe read by a filter thread: a line that looks like a codec library's
/// diagnostic (`[./]lib/jxl/<file>:<line>: …`, see ``isCodecDiagnostic(_:)``) goes to the
/// handler instead; every other line is written to file descriptor 2 unchanged. What is written
/// to file descriptor 2 directly (Swift's own output, swift-log's stream handler) never passes
/// the filter. At exit, what is still in the pipe is passed on before the process ends. The
/// library does not install it by itself: redirecting a stream the host application owns is the
/// application's decision.
public enum CodecOutputCapture {
    private static let pending = Mutex([UInt8]())
    private static let handler = Mutex<(@Sendable (String) -> Void)?>(nil)
    /// The write end of the pipe C's `stderr` now writes to (-1 before ``install(_:)``).
    private static let writeEnd = Atomic<Int32>(-1)
    private static let installed = Atomic<Bool>(false)
    /// Signalled when the reader has passed on everything (the pipe reached its end).
    private static let drained = DispatchSemaphore(value: 0)
    /// How long an exiting process waits at most for the reader to pass on the rest: a hang
    /// guard for a reader that cannot write (standard error blocked), not an expected wait.
    private static let exitDrainLimit: DispatchTimeInterval = .seconds(60)

    /// Whether ``install(_:)`` has replaced C's `stderr` in this process.
    public static var isInstalled: Bool { installed.load(ordering: .relaxed) }

    /// Replaces C's `stderr` with a stream into a pipe whose reader filters it; codec
    /// libraries' diagnostic lines (without their newline) go to `handler`, which drops them by
    /// default. Call once, early, before any thread decodes; later calls only replace the
    /// handler.
    /// - Returns: `false` when the stream could not be replaced (no pipe) or the platform has
    ///   no such stream; diagnostics then stay on standard error.
    @discardableResult
    public static func install(_ handler: @escaping @Sendable (String) -> Void = { _ in }) -> Bool {
        self.handler.withLock { $0 = handler }
        #if canImport(Glibc)
            guard installed.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged else {
                return true
            }
            guard replaceStandardError() else {
                installed.store(false, ordering: .relaxed)
                return false
            }
            return true
        #else
            return false
        #endif
    }

    /// Whether `line` is a codec library's diagnostic: `lib/jxl/<file>:<digit>…`, optionally
    /// after `./`.
    public static func isCodecDiagnostic(_ line: some StringProtocol) -> Bool {
        var text = Substring(line)
        if text.hasPrefix("./") { text = text.dropFirst(2) }
        guard text.hasPrefix("lib/jxl/"), let colon = text.firstIndex(of: ":") else { return false }
        let rest = text[text.index(after: colon)...]
        return rest.first?.isNumber == true
    }

    #if canImport(Glibc)
        private static func replaceStandardError() -> Bool {
            // The variable itself, found like the C libraries find it (one copy per process).
            guard let symbol = dlsym(nil, "stderr") else { return false }
            let variable = symbol.assumingMemoryBound(to: UnsafeMutablePointer<FILE>?.self)
            var fds: [Int32] = [0, 0]
            guard pipe(&fds) == 0 else { return false }
            _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
            _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
            guard let stream = fdopen(fds[1], "w") else {
                close(fds[0])
                close(fds[1])
                return false
            }
            setvbuf(stream, nil, _IOLBF, 4096)
            fflush(variable.pointee)
            variable.pointee = stream
            writeEnd.store(fds[1], ordering: .relaxed)
            let readEnd = fds[0]
            let reader = Thread {
                var buffer = [UInt8](repeating: 0, count: 4096)
                while true {
                    let count = buffer.withUnsafeMutableBytes { read(readEnd, $0.baseAddress!, $0.count) }
                    if count < 0 && errno == EINTR { continue }
                    if count <= 0 { break }
                    buffer.withUnsafeBytes { receive(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
                }
                flushPending()
                drained.signal()
            }
            reader.name = "webimage.codec-output-capture"
            reader.start()
            atexit {
                fflush(nil)
                let end = CodecOutputCapture.writeEnd.exchange(-1, ordering: .relaxed)
                guard end >= 0 else { return }
                close(end)
                // Waits until the reader has written everything out: an exit must not cut off
                // its last lines (an argument error's usage text, say), however long a busy
                // machine takes to run the reader. The bound only ends a reader that is stuck.
                _ = CodecOutputCapture.drained.wait(timeout: .now() + CodecOutputCapture.exitDrainLimit)
            }
            return true
        }

        private static func receive(_ bytes: UnsafeRawBufferPointer) {
            let lines = pending.withLock { pending -> [[UInt8]] in
                pending.append(contentsOf: bytes)
                var complete: [[UInt8]] = []
                while let newline = pending.firstIndex(of: 0x0A) {
                    complete.append(Array(pending[...newline]))
                    pending.removeSubrange(...newline)
                }
                return complete
            }
            for line in lines { emit(line) }
        }

        private static func flushPending() {
            let rest = pending.withLock { pending -> [UInt8] in
                defer { pending.removeAll() }
                return pending
            }
            if !rest.isEmpty { emit(rest) }
        }

        private static func emit(_ line: [UInt8]) {
            let text = String(decoding: line, as: UTF8.self)
            if isCodecDiagnostic(text) {
                let handler = handler.withLock { $0 }
                handler?(text.hasSuffix("\n") ? String(text.dropLast()) : text)
            } else {
                writeAll(line)
            }
        }

        private static func writeAll(_ bytes: [UInt8]) {
            bytes.withUnsafeBytes { buffer in
                var offset = 0
                while offset < buffer.count {
                    let count = write(STDERR_FILENO, buffer.baseAddress! + offset, buffer.count - offset)
                    if count < 0 && errno == EINTR { continue }
                    if count <= 0 { return }
                    offset += count
                }
            }
        }
    #endif
}
