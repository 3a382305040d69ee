import Foundation
import Logging
import Synchronization

#if canImport(Glibc)
    import Glibc

    /// Keeps codec libraries' own diagnostics off the tool's standard error (SPEC R-4).
    ///
    /// libjxl (as Debian builds it) prints lines such as `./lib/jxl/decode.cc:990: invalid
    /// signature` with `fprintf(stderr, …)` whenever it meets a damaged file; the tool reports the
    /// failure itself, in words. The other codec libraries print nothing (libspng, libwebp,
    /// giflib, libturbojpeg, libavif/dav1d, libheif: checked with damaged files of each).
    ///
    /// The C library's `stderr` stream is replaced by a pipe and a line filter reading it: a line that looks like a
    /// codec library's diagnostic (`[./]lib/jxl/<file>:<line>: …`) is dropped — or, with
    /// `WEBIMAGE_LOG_LEVEL=debug` or `trace`, written as `codec library: <line>`; every other
    /// line goes to file descriptor 2 unchanged. Only C's `stderr` stream is involved: the
    /// tool's own messages (written to the file descriptor), crash reports of the Swift runtime
    /// and everything written before ``install()`` are untouched.
    enum CodecOutputFilter {
        private static let pending = Mutex([UInt8]())
        private static let showsDropped = ToolLogging.level() <= .debug
        /// The write end of the pipe C's `stderr` now writes to (-1 before ``install()``).
        private static let writeEnd = Atomic<Int32>(-1)
        /// Signalled when the reader has passed on everything (the pipe reached its end).
        private static let drained = DispatchSemaphore(value: 0)

        /// Replaces C's `stderr` with a stream into a pipe whose reader filters it. Call once,
        /// before any thread decodes. At exit, what is still in the pipe is passed on.
        static func install() {
            // The variable itself, found like the C libraries find it (one copy per process).
            guard let symbol = dlsym(nil, "stderr") else { return }
            let variable = symbol.assumingMemoryBound(to: UnsafeMutablePointer<FILE>?.self)
            var fds: [Int32] = [0, 0]
            guard pipe(&fds) == 0 else { return }
            _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
            _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
            guard let stream = fdopen(fds[1], "w") else {
                close(fds[0])
                close(fds[1])
                return
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
            reader.name = "webimage.codec-output-filter"
            reader.start()
            atexit {
                fflush(nil)
                let end = CodecOutputFilter.writeEnd.exchange(-1, ordering: .relaxed)
                guard end >= 0 else { return }
                close(end)
                _ = CodecOutputFilter.drained.wait(timeout: .now() + 1)
            }
        }

        /// Whether `line` is a codec library's diagnostic.
        static func isCodecDiagnostic(_ line: some StringProtocol) -> Bool {
            var text = Substring(line)
            if text.hasPrefix("./") { text = text.dropFirst(2) }
            guard text.hasPrefix("lib/jxl/"), let colon = text.firstIndex(of: ":") else { return false }
            let rest = text[text.index(after: colon)...]
            return rest.first?.isNumber == true
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
            if isCodecDiagnostic(String(decoding: line, as: UTF8.self)) {
                guard showsDropped else { return }
                writeAll(Array("codec library: ".utf8) + line)
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
    }
#else
    enum CodecOutputFilter {
        static func install() {}
        static func isCodecDiagnostic(_ line: some StringProtocol) -> Bool { false }
    }
#endif
