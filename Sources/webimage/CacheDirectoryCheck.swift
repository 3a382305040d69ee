import ArgumentParser
import Foundation
import WebImage
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Checks a cache directory named on the command line before any command uses it, so that a
/// wrong `--cache-dir` fails at once with one clear error instead of a warning per image, and
/// so that nothing is created or deleted where the user did not mean a cache.
///
/// - Writing (`fetch`, `prefetch`): the directory must be a cache, an empty directory, or
///   missing (it is created); it must accept new files.
/// - Reading and cleaning (`cache stats|clean|clear`): a missing or empty directory is an empty
///   cache and nothing is created; a directory with files must be a cache — it carries the
///   marker ``DiskCache/markerFileName``, or (a cache made before the marker existed) a valid
///   `.index`. Anything else is refused.
enum CacheDirectoryCheck {
    /// A directory that cannot be used; the message says why, in plain words.
    struct Refused: Error, CustomStringConvertible {
        var description: String
    }

    /// Makes sure `directory` can take a cache's files: creates it when missing, refuses a
    /// file, a directory of other files, and a directory new files cannot be created in.
    static func prepareForWriting(_ directory: URL) throws(Refused) {
        let path = directory.path
        switch DiskCache.inspectDirectory(directory) {
        case .notADirectory:
            throw Refused(description: "the cache directory \(path) is a file, not a directory")
        case .notACache:
            throw Refused(description: "\(path) holds files and is not a swift-web-image cache (no \(DiskCache.markerFileName)); name a new or empty directory, or a cache")
        case .missing:
            do {
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            } catch {
                throw Refused(description: "cannot create the cache directory \(path): \(error.localizedDescription)")
            }
        case .empty, .cache, .unmarkedCache:
            break
        }
        // Creating a file is the only reliable test (permissions, read-only mounts, root).
        let probe = path + "/.webimage-probe-\(getpid())"
        let descriptor = open(probe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw Refused(description: "cannot write in the cache directory \(path): \(String(cString: strerror(errno)))")
        }
        close(descriptor)
        unlink(probe)
    }

    /// The cache at `directory` for reading or cleaning, or `nil` when there is none yet
    /// (missing or empty directory: nothing to read, nothing is created).
    static func openExisting(_ directory: URL, configuration: DiskCacheConfiguration) throws(Refused) -> DiskCache? {
        let path = directory.path
        switch DiskCache.inspectDirectory(directory) {
        case .missing, .empty:
            return nil
        case .notADirectory:
            throw Refused(description: "the cache directory \(path) is a file, not a directory")
        case .notACache:
            throw Refused(description: "\(path) is not a swift-web-image cache (no \(DiskCache.markerFileName) marker and no valid .index); refusing to read or delete anything in it")
        case .cache, .unmarkedCache:
            return DiskCache(directory: directory, configuration: configuration)
        }
    }
}

extension LoadingOptions {
    /// Fails at once, with one error, when `--cache-dir` names something that cannot be a cache.
    func checkCacheDirectory() throws {
        guard let cacheDirectory else { return }
        do {
            try CacheDirectoryCheck.prepareForWriting(URL(fileURLWithPath: cacheDirectory, isDirectory: true))
        } catch {
            Console.error(error.description)
            throw ExitCode.failure
        }
    }
}
