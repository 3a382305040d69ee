import Foundation
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What a directory is, as far as a disk cache is concerned: the answer tools need before they
/// read or delete anything in a directory a user named (``DiskCache/inspectDirectory(_:)``).
public enum DiskCacheDirectoryKind: Sendable, Hashable {
    /// Nothing exists at the path.
    case missing
    /// Something other than a directory exists at the path.
    case notADirectory
    /// A directory without any file in it.
    case empty
    /// A cache directory: it carries the ``DiskCache/markerFileName`` marker.
    case cache
    /// A cache made before caches carried the marker: no marker, but a valid `.index` file.
    /// Opening it with ``DiskCache`` adds the marker.
    case unmarkedCache
    /// A directory with files that is not a cache (no marker, no valid index).
    case notACache
}

extension DiskCache {
    /// The file that marks a directory as a disk cache: written when ``DiskCache`` creates or
    /// opens its directory. Tools refuse to clean or clear a directory without it (or, for caches
    /// made before the marker existed, without a valid index).
    public static let markerFileName = ".webimage-cache"

    /// What is at `directory`; reads only, creates nothing.
    public static func inspectDirectory(_ directory: URL) -> DiskCacheDirectoryKind {
        let path = directory.standardizedFileURL.path
        guard let info = DiskCacheFileSystem.status(path) else { return .missing }
        guard (info.st_mode & S_IFMT) == S_IFDIR else { return .notADirectory }
        if DiskCacheFileSystem.status(path + "/" + markerFileName) != nil { return .cache }
        if DiskCacheMarker.hasValidIndex(in: path) { return .unmarkedCache }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        return names.isEmpty ? .empty : .notACache
    }
}

/// Writing and recognising the marker and the index header.
enum DiskCacheMarker {
    /// What the marker file says, for a person who finds it.
    static let contents = Data("swift-web-image disk cache. Tools delete only the entries its .index lists.\n".utf8)

    /// Creates the marker in `directory` unless it is there (best effort: a read-only
    /// directory is still readable as a cache).
    static func ensure(in directory: String) {
        let path = directory + "/" + DiskCache.markerFileName
        guard DiskCacheFileSystem.status(path) == nil else { return }
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        contents.withUnsafeBytes { raw in
            _ = try? DiskCacheFileSystem.writeAll(descriptor, raw, path: path)
        }
    }

    /// Whether `directory/.index` starts with the index header.
    static func hasValidIndex(in directory: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: directory + "/.index") else { return false }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: 16)) ?? Data()
        return head.starts(with: Data("WEBIMAGE-INDEX ".utf8))
    }
}
