import Foundation
import Synchronization
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Maintenance of a cache directory: moving an old directory's entries in, removing what
/// crashed writers left.
extension DiskCacheStore {
    /// Moves the entries of `oldDirectory` (same naming) into this cache, keeping entries
    /// already here; returns how many were moved. The old directory is removed when empty.
    func migrate(from oldDirectory: String) throws -> Int {
        guard oldDirectory != directory,
            let names = try? FileManager.default.contentsOfDirectory(atPath: oldDirectory)
        else { return 0 }
        return try withIndex { index, records in
            var moved = 0
            for name in names where DiskCacheFileName.isEntryName(name) {
                let source = oldDirectory + "/" + name
                let target = path(forName: name)
                guard DiskCacheFileSystem.status(target) == nil,
                    let info = DiskCacheFileSystem.status(source), (info.st_mode & S_IFMT) == S_IFREG
                else { continue }
                if rename(source, target) != 0 {
                    // Another file system: copy, then remove the original.
                    guard (try? FileManager.default.copyItem(atPath: source, toPath: target)) != nil else { continue }
                    unlink(source)
                }
                let oldSide = oldDirectory + "/.meta-" + name
                if DiskCacheFileSystem.status(oldSide) != nil {
                    if rename(oldSide, sideRecordPath(forName: name)) != 0 {
                        try? FileManager.default.copyItem(atPath: oldSide, toPath: sideRecordPath(forName: name))
                    }
                }
                let date = DiskCacheFileSystem.date(configuration.expireDate, of: info, path: target)
                index.upsert(name, size: Int(info.st_size), date: date)
                DiskCacheJournal.appendUpsert(name: name, size: Int(info.st_size), date: date, to: &records)
                moved += 1
            }
            if let rest = try? FileManager.default.contentsOfDirectory(atPath: oldDirectory),
                rest.allSatisfy({ $0.hasPrefix(".") && !$0.hasPrefix(".meta-") })
            {
                try? FileManager.default.removeItem(atPath: oldDirectory)
            }
            return moved
        }
    }

    /// Deletes temporary files left by processes that died mid-write.
    func removeAbandonedTemporaryFiles() {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        for name in names where name.hasPrefix(".tmp-") || name.hasPrefix(".index.tmp-") {
            let pidText = name.split(separator: "-").dropFirst().first ?? ""
            guard let pid = Int32(pidText), !DiskCacheFileSystem.isProcessAlive(pid) else { continue }
            unlink(path(forName: name))
        }
    }
}
