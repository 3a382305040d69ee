import Foundation
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The cross-process lock of a cache directory: `flock` on the `.lock` file in it.
///
/// Index writes, entry renames and cleaning happen while it is held, so two processes sharing
/// the directory never interleave them. `flock` does not exclude threads of one process that
/// share the descriptor, so ``DiskCacheStore`` also holds its own mutex around it. If the
/// directory (and so the lock file) was deleted, the next ``lock()`` re-creates both.
///
/// The lock file's first byte is a "dirty" flag: `1` while a holder is inside its critical
/// section, `0` after. A holder killed mid-section (between renaming an entry and recording it,
/// say) leaves `1`; the next holder sees it and rebuilds the index from the files. Crashes are
/// rare, so this O(n) recovery keeps the normal path at two extra one-byte writes.
/// Used only under ``DiskCacheStore``'s mutex.
final class DiskCacheLock {
    private let directory: String
    private let path: String
    private var fd: Int32 = -1
    private var inode: ino_t = 0

    init(directory: String) {
        self.directory = directory
        self.path = directory + "/.lock"
    }

    deinit {
        if fd >= 0 { close(fd) }
    }

    /// Takes the lock, re-creating the directory and the lock file when they are gone.
    /// - Returns: whether the previous holder died inside its critical section.
    func lock() throws -> Bool {
        for _ in 0..<8 {
            try openIfNeeded()
            var result: Int32
            repeat { result = flock(fd, LOCK_EX) } while result != 0 && errno == EINTR
            guard result == 0 else {
                throw WebImageError.cacheIO(reason: "flock \(path): \(DiskCacheFileSystem.errorText())")
            }
            // The file may have been replaced while we waited; then lock the new one.
            if let info = DiskCacheFileSystem.status(path), info.st_ino == inode {
                var flag: UInt8 = 0
                let got = pread(fd, &flag, 1, 0)
                var dirty: UInt8 = UInt8(ascii: "1")
                _ = pwrite(fd, &dirty, 1, 0)
                return got == 1 && flag == UInt8(ascii: "1")
            }
            _ = flock(fd, LOCK_UN)
            close(fd)
            fd = -1
        }
        throw WebImageError.cacheIO(reason: "cannot lock \(path)")
    }

    /// Releases the lock.
    func unlock() {
        guard fd >= 0 else { return }
        var clean: UInt8 = UInt8(ascii: "0")
        _ = pwrite(fd, &clean, 1, 0)
        _ = flock(fd, LOCK_UN)
    }

    private func openIfNeeded() throws {
        if fd >= 0, let info = DiskCacheFileSystem.status(path), info.st_ino == inode { return }
        if fd >= 0 {
            close(fd)
            fd = -1
        }
        var descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        if descriptor < 0 && errno == ENOENT {
            try DiskCacheFileSystem.createDirectory(directory)
            descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        }
        guard descriptor >= 0 else {
            throw WebImageError.cacheIO(reason: "open \(path): \(DiskCacheFileSystem.errorText())")
        }
        inode = try DiskCacheFileSystem.inode(ofOpen: descriptor, path: path)
        fd = descriptor
    }
}

extension DiskCacheFileSystem {
    /// Creates the cache directory `path` and its parents if missing, and its marker
    /// (``DiskCache/markerFileName``) if missing.
    static func createDirectory(_ path: String) throws {
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw WebImageError.cacheIO(reason: "cannot create \(path): \(error)")
        }
        DiskCacheMarker.ensure(in: path)
    }
}
