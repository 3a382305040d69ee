import ArgumentParser
import Foundation
import WebImage

/// Hidden `webimage cache stress`: writes self-checking entries in a loop. The disk-cache
/// tests run it as a child process to kill it mid-write (atomicity after a crash) and to run
/// two writers/cleaners on one directory at once.
///
/// Entry `stress-<n>` holds: 8 bytes little-endian payload length `L`, 8 bytes seed, then `L`
/// bytes where byte `i` is `UInt8(truncatingIfNeeded: seed &+ UInt64(i) &* 31)`.
struct CacheStressCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stress", abstract: "Write self-checking entries (for tests).", shouldDisplay: false)

    @Option(name: .customLong("cache-dir")) var cacheDirectory: String
    @Option var writer: Int = 0
    @Option var count: Int = 100
    @Option var keys: Int = 50
    @Option var size: Int = 65536
    @Option(name: .customLong("max-size")) var maxSize: Int = 0
    @Option(name: .customLong("clean-every")) var cleanEvery: Int = 0
    @Flag(name: .customLong("fixed-size")) var fixedSize = false

    func run() throws {
        var configuration = DiskCacheConfiguration()
        configuration.automaticCleaningInterval = nil
        configuration.maxDiskSize = maxSize
        let cache = DiskCache(directory: URL(fileURLWithPath: cacheDirectory, isDirectory: true), configuration: configuration)
        for n in 0..<max(0, count) {
            let seed = UInt64(writer) << 32 | UInt64(n)
            let length = fixedSize ? size : size + (n % 7) * 1024
            var bytes = [UInt8](repeating: 0, count: 16 + length)
            withUnsafeBytes(of: UInt64(length).littleEndian) { bytes.replaceSubrange(0..<8, with: $0) }
            withUnsafeBytes(of: seed.littleEndian) { bytes.replaceSubrange(8..<16, with: $0) }
            // The pattern repeats every 256 bytes: build one period, then copy it.
            let period = (0..<256).map { UInt8(truncatingIfNeeded: seed &+ UInt64($0) &* 31) }
            var offset = 0
            while offset < length {
                let run = min(256, length - offset)
                bytes.replaceSubrange((16 + offset)..<(16 + offset + run), with: period[0..<run])
                offset += run
            }
            cache.store(Data(bytes), forKey: "stress-\(n % max(1, keys))")
            if n % 8 == 7 { cache.flush() }
            if cleanEvery > 0 && n % cleanEvery == cleanEvery - 1 { cache.removeExpiredData() }
            if n == 0 {
                cache.flush()
                FileHandle.standardOutput.write(Data("started\n".utf8))
            }
        }
        cache.flush()
        print("done")
    }
}
