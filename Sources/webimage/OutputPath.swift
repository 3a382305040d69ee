import Foundation

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
            // attributesOfItem does not follow a final link (lstat), so it reports the link itself.
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: current),
                attributes[.type] as? FileAttributeType == .typeSymbolicLink
            else { return current }
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
        guard let first = identity(a), let second = identity(b) else { return false }
        return first == second
    }

    /// The device and inode of the file `path` names, links followed; `nil` when it does not exist.
    private static func identity(_ path: String) -> [Int]? {
        let resolved = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: resolved),
            let device = (attributes[.systemNumber] as? NSNumber)?.intValue,
            let inode = (attributes[.systemFileNumber] as? NSNumber)?.intValue
        else { return nil }
        return [device, inode]
    }
}
