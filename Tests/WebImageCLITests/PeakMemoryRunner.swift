import Foundation
import WebImageTesting

#if canImport(Glibc)
    import Glibc
#endif

/// Runs the built `webimage` binary under GNU `time`, which forks it and reads its peak
/// resident set size (`ru_maxrss`) with `wait4`.
///
/// Why not `wait4` on a child of the test process itself: Linux keeps the high-water mark of
/// the memory a process had before `execve` (`posix_spawn` runs the child in the parent's
/// address space until then, `fork` copies it), so a child spawned from a test process of
/// 200 MB would report at least 200 MB whatever it does. `time` is small, and its child starts
/// from its small copy. (`getrusage(RUSAGE_CHILDREN)` has the same problem and also mixes every
/// child other tests run in parallel.)
enum PeakMemoryRunner {
    /// GNU time (Debian package `time`, installed by `make setup`).
    static let time = "/usr/bin/time"
    static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: time) && CLIRunner.binary != nil }

    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
        /// The child's peak resident set size in bytes.
        var peakResidentBytes: Int
        /// Wall time, for reporting only (no test asserts on it).
        var seconds: Double
    }

    static func run(_ arguments: [String]) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Swift.Result { try runBlocking(arguments) }) }.start()
        }
    }

    static func runBlocking(_ arguments: [String]) throws -> Result {
        guard let binary = CLIRunner.binary else { throw CLIRunner.CLIError.binaryNotFound }
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

        let rssPath = scratch.appendingPathComponent("rss").path
        let argv = ([Self.time, "-f", "%M", "-o", rssPath, "--", binary.path] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var environment = ProcessInfo.processInfo.environment
        environment["NO_COLOR"] = "1"
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in envp { free(pointer) } }

        let start = ContinuousClock.now
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, Self.time, &actions, nil, argv, envp)
        guard spawned == 0 else { throw SpawnError(code: spawned) }

        var status: Int32 = 0
        var usage = rusage()  // time's own usage (unused: see the type's comment)
        // Hang detection only (not a timing assertion): a child that outlives the bound is killed.
        let deadline = ContinuousClock.now + .seconds(120)
        while true {
            let reaped = wait4(pid, &status, WNOHANG, &usage)
            if reaped == pid { break }
            if reaped < 0 && errno != EINTR { throw SpawnError(code: errno) }
            if ContinuousClock.now > deadline {
                kill(pid, SIGKILL)
                _ = wait4(pid, &status, 0, &usage)
                throw CLIRunner.CLIError.timedOut(arguments)
            }
            usleep(10_000)
        }
        let elapsed = start.duration(to: .now)
        let exitStatus: Int32 = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        return Result(
            status: exitStatus,
            stdout: String(decoding: (try? Data(contentsOf: URL(fileURLWithPath: outPath))) ?? Data(), as: UTF8.self),
            stderr: String(decoding: (try? Data(contentsOf: URL(fileURLWithPath: errPath))) ?? Data(), as: UTF8.self),
            peakResidentBytes: try Self.kilobytes(in: rssPath) * 1024,
            seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }

    /// The last line of `time -o`: the child's peak RSS in kilobytes (earlier lines may say the
    /// child exited non-zero).
    static func kilobytes(in path: String) throws -> Int {
        let text = try String(contentsOf: URL(fileURLWithPath: path), encoding: .utf8)
        guard let line = text.split(whereSeparator: \.isNewline).last, let value = Int(line.trimmingCharacters(in: .whitespaces))
        else { throw SpawnError(code: 0, output: text) }
        return value
    }

    struct SpawnError: Error, CustomStringConvertible {
        var code: Int32
        var output = ""
        var description: String {
            code == 0 ? "time -o gave no peak RSS: \(output)" : "posix_spawn/wait4 failed: \(String(cString: strerror(code)))"
        }
    }
}

/// Hostile images made in the test (never stored in the repository).
enum BombFixtures {
    /// A GIF of `frames` frames of 1×1 pixels on a `canvas`×`canvas` screen (94 KB for 4,096
    /// frames): decoding every frame composited costs frames × canvas² × 4 bytes.
    static func manyFrameGIF(frames: Int = 4_096, canvas: Int = 256) -> Data {
        var bytes: [UInt8] = Array("GIF89a".utf8)
        bytes += [UInt8(canvas & 0xFF), UInt8(canvas >> 8), UInt8(canvas & 0xFF), UInt8(canvas >> 8), 0x80, 0, 0]
        bytes += [0, 0, 0, 255, 255, 255]  // a two-colour global table
        bytes += [0x21, 0xFF, 0x0B] + Array("NETSCAPE2.0".utf8) + [0x03, 0x01, 0x00, 0x00, 0x00]
        for index in 0..<frames {
            bytes += [0x21, 0xF9, 0x04, 0x00, 0x02, 0x00, 0x00, 0x00]  // 20 ms
            let x = index % canvas, y = (index / canvas * 16) % canvas
            bytes += [0x2C, UInt8(x & 0xFF), UInt8(x >> 8), UInt8(y & 0xFF), UInt8(y >> 8), 1, 0, 1, 0, 0]
            bytes += [0x02, 0x02, 0x44, 0x01, 0x00]  // LZW: clear, index 0, end
        }
        bytes.append(0x3B)
        return Data(bytes)
    }

    /// A black RGB PNG of `side`×`side` pixels whose pixel data is one fixed-Huffman deflate
    /// block of 258-byte back-references (about 1.6 MB for 9400×9400).
    static func blackPNG(side: Int = 9_400) -> Data {
        let rawCount = side * (1 + side * 3)  // filter byte 0 + zero samples per row: all zeros
        var bits = BitWriter()
        bits.write(0b1, count: 1)  // BFINAL
        bits.write(0b01, count: 2)  // fixed Huffman
        bits.writeHuffman(0b0011_0000, length: 8)  // literal 0
        var remaining = rawCount - 1
        // Length code 285 (258 bytes) then distance code 0 (distance 1), as one 13-bit value in
        // the stream's order.
        let match = BitWriter.reversed(0b1100_0101, length: 8) | BitWriter.reversed(0, length: 5) << 8
        while remaining >= 258 {
            bits.write(match, count: 13)
            remaining -= 258
        }
        while remaining > 0 {
            bits.writeHuffman(0b0011_0000, length: 8)
            remaining -= 1
        }
        bits.writeHuffman(0, length: 7)  // end of block (256)
        var zlib: [UInt8] = [0x78, 0x01] + bits.finished
        let adlerB = UInt32(rawCount % 65_521)
        zlib += bigEndian((adlerB << 16) | 1)

        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        png += chunk("IHDR", bigEndian(UInt32(side)) + bigEndian(UInt32(side)) + [8, 2, 0, 0, 0])
        png += chunk("IDAT", zlib)
        png += chunk("IEND", [])
        return Data(png)
    }

    private static func chunk(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        let typed = Array(type.utf8) + payload
        return bigEndian(UInt32(payload.count)) + typed + bigEndian(CRC32.checksum(typed))
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }

    /// Deflate's bit order: values LSB first, Huffman codes MSB first.
    struct BitWriter {
        var bytes: [UInt8] = []
        private var current: UInt64 = 0
        private var filled = 0

        /// `count` (≤ 32) bits of `value`, least significant first.
        mutating func write(_ value: UInt32, count: Int) {
            current |= UInt64(value & UInt32((UInt64(1) << count) - 1)) << UInt64(filled)
            filled += count
            while filled >= 8 {
                bytes.append(UInt8(current & 0xFF))
                current >>= 8
                filled -= 8
            }
        }

        mutating func writeHuffman(_ code: UInt32, length: Int) {
            write(Self.reversed(code, length: length), count: length)
        }

        /// The low `length` bits of `code` in reverse order.
        static func reversed(_ code: UInt32, length: Int) -> UInt32 {
            var result: UInt32 = 0
            for bit in 0..<length where code & (1 << UInt32(bit)) != 0 { result |= 1 << UInt32(length - 1 - bit) }
            return result
        }

        /// Pads the last byte.
        var finished: [UInt8] { filled == 0 ? bytes : bytes + [UInt8(current & 0xFF)] }
    }
}
