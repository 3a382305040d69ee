import Foundation
#if canImport(Glibc)
    import Glibc
#endif
import Synchronization
@testable import WebImage


enum CacheFixtures {
    /// A solid image of `width × height`.
    static func image(width: Int = 4, height: Int = 4, value: UInt8 = 7) -> Image {
        Image(pixels: PixelBuffer(width: width, height: height, bytes: [UInt8](repeating: value, count: width * height * 4)))
    }

    /// A fresh empty temporary directory.
    static func temporaryDirectory(_ name: String = #function) -> URL {
        let safe = name.filter { $0.isLetter || $0.isNumber }
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("webimage-cache-tests", isDirectory: true)
            .appendingPathComponent("\(safe)-\(UUID().uuidString)", isDirectory: true)
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func remove(_ url: URL) {
        try? FileManager.default.removeItem(at: url)
    }

    /// A disk configuration without automatic cleaning.
    static func diskConfiguration(
        maxAge: TimeInterval = 7 * 86400, maxSize: Int = 0, expireDate: DiskCacheExpireDate = .modificationDate,
        sideRecords: Bool = false
    ) -> DiskCacheConfiguration {
        DiskCacheConfiguration(
            maxDiskAge: maxAge, maxDiskSize: maxSize, expireDate: expireDate, automaticCleaningInterval: nil,
            forceSideRecords: sideRecords)
    }

    /// Whether `data` is a whole entry written by `webimage cache stress` (see its format).
    static func isWholeStressEntry(_ data: Data) -> Bool {
        let bytes = [UInt8](data)
        guard bytes.count >= 16 else { return false }
        var length: UInt64 = 0
        var seed: UInt64 = 0
        for i in 0..<8 {
            length |= UInt64(bytes[i]) << (8 * UInt64(i))
            seed |= UInt64(bytes[8 + i]) << (8 * UInt64(i))
        }
        guard length == UInt64(bytes.count - 16) else { return false }
        for i in 0..<Int(length) where bytes[16 + i] != UInt8(truncatingIfNeeded: seed &+ UInt64(i) &* 31) {
            return false
        }
        return true
    }

    /// The `webimage` tool next to the test bundle, when it was built.
    static var webimageTool: URL? {
        var candidates: [URL] = []
        let exe = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        candidates.append(exe.deletingLastPathComponent().appendingPathComponent("webimage"))
        if let first = CommandLine.arguments.first {
            candidates.append(URL(fileURLWithPath: first).deletingLastPathComponent().appendingPathComponent("webimage"))
        }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    /// A clock for caches: real time plus an offset the test moves forward.
    final class Clock: Sendable {
        private let offset = Mutex<Double>(0)
        func advance(_ seconds: Double) { offset.withLock { $0 += seconds } }
        var now: Double { Date().timeIntervalSince1970 + offset.withLock { $0 } }
        var uptime: Double { ProcessInfo.processInfo.systemUptime + offset.withLock { $0 } }
    }

    /// Sets the access and modification times of `url` to `date`.
    static func setFileDates(_ url: URL, to date: Date) {
        try? FileManager.default.setAttributes([.modificationDate: date], ofItemAtPath: url.path)
        var times = [
            timeval(tv_sec: Int(date.timeIntervalSince1970), tv_usec: 0),
            timeval(tv_sec: Int(date.timeIntervalSince1970), tv_usec: 0),
        ]
        _ = utimes(url.path, &times)
    }

    /// Entry files (not index, lock or temporary files) in `directory`.
    static func entryFiles(in directory: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).filter { !$0.hasPrefix(".") }
    }
}
