import Foundation

#if canImport(Glibc)
    import Glibc
    private let systemRead = Glibc.read
    private let systemWrite = Glibc.write
#elseif canImport(Musl)
    import Musl
    private let systemRead = Musl.read
    private let systemWrite = Musl.write
#elseif canImport(Darwin)
    import Darwin
    private let systemRead = Darwin.read
    private let systemWrite = Darwin.write
#endif

/// Reading and writing local files with errors that say what happened (SPEC R-4): a directory,
/// a FIFO or a device given as an image file, a missing file, a directory that does not accept
/// new files — not Foundation's "NSCocoaErrorDomain error 256".
public enum LocalFile {
    /// The bytes of the regular file at `path`.
    ///
    /// The file is opened without blocking (a FIFO never waits for a writer) and checked on the
    /// open descriptor, so it cannot be swapped for something else between check and read.
    /// - Parameters:
    ///   - path: the file's path.
    ///   - limit: the largest file read, in bytes; a larger one fails with
    ///     `responseTooLarge(limit:)` before anything is read.
    /// - Throws: ``WebImageError/fileAccess(path:reason:)`` naming what is wrong, or
    ///   `responseTooLarge`.
    public static func read(_ path: String, limit: Int64 = .max) throws(WebImageError) -> Data {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw .fileAccess(path: path, reason: openFailure(errno, reading: true)) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .fileAccess(path: path, reason: describe(errno)) }
        if let kind = notRegular(info.st_mode) {
            throw .fileAccess(path: path, reason: "is \(kind), not a regular file")
        }
        let size = Int64(info.st_size)
        if size > limit { throw .responseTooLarge(limit: limit) }
        var data = Data(count: Int(size))
        var filled = 0
        while filled < data.count {
            let count = data.withUnsafeMutableBytes { buffer in
                systemRead(fd, buffer.baseAddress! + filled, buffer.count - filled)
            }
            if count < 0 {
                if errno == EINTR { continue }
                throw .fileAccess(path: path, reason: "reading failed: \(describe(errno))")
            }
            if count == 0 { break }  // the file shrank while read
            filled += count
        }
        if filled < data.count { data.removeSubrange(filled...) }
        return data
    }

    /// Writes `data` to `path` atomically: to a new file beside it, then renamed over `path`,
    /// so `path` holds the old contents or the new ones, never a part.
    /// - Throws: ``WebImageError/fileAccess(path:reason:)`` naming what is wrong (the directory
    ///   does not exist or does not accept new files, permission, a read-only file system, a
    ///   full disk, `path` is a directory).
    /// - Parameters:
    ///   - data: the bytes to write.
    ///   - path: the file to create or replace.
    ///   - mayReplace: asked just before the rename; `false` removes the new file and throws
    ///     `cancelled` (a deadline ran out).
    public static func writeAtomically(
        _ data: Data, to path: String, mayReplace: (() -> Bool)? = nil
    ) throws(WebImageError) {
        let url = URL(fileURLWithPath: path)
        let directory = url.deletingLastPathComponent().path
        var info = stat()
        if stat(directory, &info) != 0 {
            throw .fileAccess(path: path, reason: "cannot write: the directory \(directory) \(missing(errno))")
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw .fileAccess(path: path, reason: "cannot write: \(directory) is not a directory")
        }
        if stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR {
            throw .fileAccess(path: path, reason: "cannot write: it is a directory")
        }
        let temporary = directory + "/." + url.lastPathComponent + ".\(UUID().uuidString.prefix(8)).tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw .fileAccess(path: path, reason: "cannot write: \(createFailure(errno, directory: directory))")
        }
        var written = 0
        var failure: Int32 = 0
        while written < data.count {
            let count = data.withUnsafeBytes { buffer in
                systemWrite(fd, buffer.baseAddress! + written, buffer.count - written)
            }
            if count < 0 {
                if errno == EINTR { continue }
                failure = errno
                break
            }
            written += count
        }
        if close(fd) != 0, failure == 0 { failure = errno }
        if failure == 0, let mayReplace, !mayReplace() {
            unlink(temporary)
            throw .cancelled
        }
        if failure == 0, rename(temporary, path) != 0 { failure = errno }
        if failure != 0 {
            unlink(temporary)
            throw .fileAccess(path: path, reason: "cannot write: \(describe(failure))")
        }
    }

    /// "a directory", "a FIFO (named pipe)", … for a file type other than a regular file.
    static func notRegular(_ mode: mode_t) -> String? {
        switch mode & S_IFMT {
        case S_IFREG: nil
        case S_IFDIR: "a directory"
        case S_IFIFO: "a FIFO (named pipe)"
        case S_IFSOCK: "a socket"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        default: "not a regular file"
        }
    }

    private static func openFailure(_ code: Int32, reading: Bool) -> String {
        switch code {
        case ENOENT: "no such file"
        case EACCES, EPERM: "permission denied"
        case ENOTDIR: "a part of the path is not a directory"
        case ELOOP: "too many symbolic links"
        case ENAMETOOLONG: "the path is too long"
        default: describe(code)
        }
    }

    private static func missing(_ code: Int32) -> String {
        switch code {
        case ENOENT: "does not exist"
        case EACCES, EPERM: "cannot be reached (permission denied)"
        default: "cannot be reached (\(describe(code)))"
        }
    }

    private static func createFailure(_ code: Int32, directory: String) -> String {
        switch code {
        case EACCES, EPERM: "permission denied to create files in \(directory)"
        case EROFS: "\(directory) is on a read-only file system"
        case ENOSPC, EDQUOT: "no space left on the device of \(directory)"
        // The directory exists (checked before), so ENOENT/ENOTSUP mean that its file system
        // does not create files this way, as /proc and /sys do.
        case ENOENT, ENOTSUP, EOPNOTSUPP:
            "the directory \(directory) does not accept new files (a virtual file system such as /proc or /sys)"
        default: describe(code)
        }
    }

    /// The C library's text for `code`, e.g. "No space left on device (errno 28)".
    static func describe(_ code: Int32) -> String {
        "\(String(cString: strerror(code))) (errno \(code))"
    }
}
