import Foundation
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where `convert` really writes, and whether that is its input: an output that is a symbolic
/// link is written through the link (the file it points to is replaced, the link stays), and
/// an output that is the input file itself (same device and inode, whatever the spelling or
/// links) is refused unless the user says `--overwrite`.
enum OutputPath {
    /// Links followed at most, as the kernel does (`ELOOP` beyond).
    static let maximumLinks = 40

    /// `path` with every symbolic link at its end followed (relative targets resolve against
    /// the link's directory); the path itself when it is not a link or does not exist. A
    /// dangling link resolves to the missing file it names, so the write creates that file.
    /// - Throws: `CocoaError` when there are more than ``maximumLinks`` links in a row.
    static func followingLinks(_ path: String) throws -> String {
        var current = path
        for _ in 0..<maximumLinks {
            var info = stat()
            guard lstat(current, &info) == 0, (info.st_mode & S_IFMT) == S_IFLNK else { return current }
            let target = try FileManager.default.destinationOfSymbolicLink(atPath: current)
            if target.hasPrefix("/") {
                current = target
            } else {
                current = (URL(fileURLWithPath: current).deletingLastPathComponent().path as NSString).appendingPathComponent(target)
            }
        }
        throw CocoaError(.fileReadUnknown, userInfo: [NSFilePathErrorKey: path, NSLocalizedDescriptionKey: "too many levels of symbolic links"])
    }

    /// Whether `a` and `b` name the same existing file (device and inode, links followed).
    static func isSameFile(_ a: String, _ b: String) -> Bool {
        var first = stat()
        var second = stat()
        guard stat(a, &first) == 0, stat(b, &second) == 0 else { return false }
        return first.st_dev == second.st_dev && first.st_ino == second.st_ino
    }
}
