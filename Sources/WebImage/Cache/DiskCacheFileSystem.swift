import Foundation
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The few POSIX calls the disk cache needs, with errors turned into ``/WebImageCore/WebImageError/cacheIO(reason:)``.
enum DiskCacheFileSystem {
    /// The current `errno` as text.
    static func errorText(_ code: Int32 = errno) -> String {
        String(cString: strerror(code))
    }

    /// Writes `data` to a new file at `path` (which must not exist), sets its access and
    /// modification times to `date` (seconds since 1970) and, when given, attaches `xattr`
    /// (name, value) as an extended attribute. Returns `false` from `xattrFailed` when the
    /// attribute could not be set because the file system does not support it.
    static func writeNewFile(
        _ data: Data, at path: String, date: Double, xattr: (name: String, value: Data)?
    ) throws -> (xattrStored: Bool, errnoOnOpen: Int32) {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return (false, errno) }
        var ok = false
        defer {
            close(fd)
            if !ok { unlink(path) }
        }
        try data.withUnsafeBytes { raw in
            try writeAll(fd, raw, path: path)
        }
        var times = [makeTimespec(date), makeTimespec(date)]
        _ = futimens(fd, &times)
        var xattrStored = false
        if let xattr {
            let result = xattr.value.withUnsafeBytes { raw in
                XattrCalls.fset(fd, xattr.name, raw.baseAddress, raw.count, 0)
            }
            xattrStored = result == 0
        }
        ok = true
        return (xattrStored, 0)
    }

    /// Writes every byte of `raw` to `descriptor`, retrying after `EINTR`.
    static func writeAll(_ descriptor: Int32, _ raw: UnsafeRawBufferPointer, path: String) throws {
        guard let base = raw.baseAddress else { return }
        var offset = 0
        while offset < raw.count {
            let written = write(descriptor, base + offset, raw.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                throw WebImageError.cacheIO(reason: "write \(path): \(errorText())")
            }
            offset += written
        }
    }

    /// The inode of the open `descriptor`; on failure the descriptor is closed and the error
    /// thrown.
    static func inode(ofOpen descriptor: Int32, path: String) throws -> ino_t {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            close(descriptor)
            throw WebImageError.cacheIO(reason: "stat \(path): \(errorText())")
        }
        return info.st_ino
    }

    /// The whole file at `path`, or `nil` when it does not exist.
    static func readFile(_ path: String) throws -> Data? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT || errno == ENOTDIR { return nil }
            throw WebImageError.cacheIO(reason: "open \(path): \(errorText())")
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw WebImageError.cacheIO(reason: "stat \(path): \(errorText())") }
        let size = max(0, Int(info.st_size))
        guard size > 0 else { return Data() }
        // Read into uninitialised memory that the Data then owns: no zero fill, no copy.
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
        var total = 0
        while total < size {
            let got = read(fd, buffer + total, size - total)
            if got < 0 {
                if errno == EINTR { continue }
                buffer.deallocate()
                throw WebImageError.cacheIO(reason: "read \(path): \(errorText())")
            }
            if got == 0 { break }
            total += got
        }
        return Data(bytesNoCopy: buffer, count: total, deallocator: .custom { pointer, _ in pointer.deallocate() })
    }

    /// `stat` of `path`, or `nil` when it does not exist.
    static func status(_ path: String) -> stat? {
        var info = stat()
        return stat(path, &info) == 0 ? info : nil
    }

    /// The date (milliseconds since 1970) of `kind` for the file at `path`.
    static func date(_ kind: DiskCacheExpireDate, of info: stat, path: String) -> Int64 {
        switch kind {
        case .accessDate: return milliseconds(accessTime(info))
        case .modificationDate: return milliseconds(modificationTime(info))
        case .changeDate: return milliseconds(changeTime(info))
        case .creationDate:
            if let created = (try? FileManager.default.attributesOfItem(atPath: path))?[.creationDate] as? Date {
                return DiskCacheStore.milliseconds(created.timeIntervalSince1970)
            }
            return milliseconds(changeTime(info))
        }
    }

    /// Sets the access time of `path` to `date` (seconds since 1970), keeping the modification time.
    static func touchAccess(_ path: String, date: Double) {
        var times = [makeTimespec(date), timespec(tv_sec: 0, tv_nsec: utimeOmit)]
        _ = utimensat(AT_FDCWD, path, &times, 0)
    }

    /// The extended attribute `name` of `path`: `.value` when present, `.absent` when not set,
    /// `.unsupported` when the file system has no extended attributes, `nil` when the file is gone.
    enum XattrResult {
        case value(Data)
        case absent
        case unsupported
        case missingFile
    }

    static func getXattr(_ path: String, name: String) -> XattrResult {
        var capacity = 4096
        for _ in 0..<4 {
            var buffer = [UInt8](repeating: 0, count: capacity)
            let got = buffer.withUnsafeMutableBytes { XattrCalls.get(path, name, $0.baseAddress, capacity) }
            if got >= 0 { return .value(Data(buffer[0..<got])) }
            switch errno {
            case ERANGE:
                let needed = XattrCalls.get(path, name, nil, 0)
                guard needed > 0, needed <= 1 << 20 else { return .absent }
                capacity = needed
            case ENOENT, ENOTDIR: return .missingFile
            case ENOTSUP: return .unsupported
            default: return .absent
            }
        }
        return .absent
    }

    /// Sets the extended attribute `name` of `path`; returns `false` when unsupported or failed.
    static func setXattr(_ path: String, name: String, value: Data) -> Bool {
        value.withUnsafeBytes { XattrCalls.set(path, name, $0.baseAddress, $0.count, 0) } == 0
    }

    /// Whether extended attributes work in `directory` (probed with a temporary file).
    static func supportsXattr(in directory: String) -> Bool {
        let probe = directory + "/.xattr-probe-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let fd = open(probe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return false }
        defer {
            close(fd)
            unlink(probe)
        }
        let value: [UInt8] = [1]
        return value.withUnsafeBytes { XattrCalls.fset(fd, "user.webimage.probe", $0.baseAddress, 1, 0) } == 0
    }

    /// Whether process `pid` is alive.
    static func isProcessAlive(_ pid: Int32) -> Bool {
        if pid == getpid() { return true }
        return kill(pid, 0) == 0 || errno == EPERM
    }

    /// `UTIME_OMIT` (`(1 << 30) - 2` on Linux): leave that time unchanged.
    private static let utimeOmit = (1 << 30) - 2

    #if canImport(Glibc)
        private static func accessTime(_ info: stat) -> timespec { info.st_atim }
        private static func modificationTime(_ info: stat) -> timespec { info.st_mtim }
        private static func changeTime(_ info: stat) -> timespec { info.st_ctim }
    #else
        private static func accessTime(_ info: stat) -> timespec { info.st_atimespec }
        private static func modificationTime(_ info: stat) -> timespec { info.st_mtimespec }
        private static func changeTime(_ info: stat) -> timespec { info.st_ctimespec }
    #endif

    static func milliseconds(_ time: timespec) -> Int64 {
        Int64(time.tv_sec) * 1000 + Int64(time.tv_nsec) / 1_000_000
    }

    private static func makeTimespec(_ seconds: Double) -> timespec {
        let whole = seconds.rounded(.down)
        return timespec(tv_sec: Int(whole), tv_nsec: Int((seconds - whole) * 1_000_000_000))
    }
}
