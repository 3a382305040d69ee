import Foundation
import Synchronization
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The extended data of entries: an extended attribute on the entry file, or a side record
/// (`.meta-<name>`) where the file system has none.
extension DiskCacheStore {
    /// The extended data of entry `name`, if any.
    func extendedData(name: String) -> DiskCacheExtendedData? {
        let full = path(forName: name)
        var encoded: Data?
        if !usesSideRecords {
            switch DiskCacheFileSystem.getXattr(full, name: Self.xattrName) {
            case .value(let data): encoded = data
            case .missingFile: return nil
            case .absent, .unsupported: break
            }
        }
        if encoded == nil {
            guard DiskCacheFileSystem.status(full) != nil else { return nil }
            encoded = try? DiskCacheFileSystem.readFile(sideRecordPath(forName: name))
        }
        guard let encoded else { return nil }
        return try? JSONDecoder().decode(DiskCacheExtendedData.self, from: encoded)
    }

    /// Replaces the extended data of the existing entry `name`; `false` when there is no entry.
    @discardableResult
    func setExtendedData(_ extendedData: DiskCacheExtendedData?, name: String) throws -> Bool {
        let encoded = try extendedData.map { try JSONEncoder().encode($0) }
        return try withIndex { _, _ in
            let full = path(forName: name)
            guard DiskCacheFileSystem.status(full) != nil else { return false }
            if !usesSideRecords {
                if let encoded {
                    if DiskCacheFileSystem.setXattr(full, name: Self.xattrName, value: encoded) {
                        unlink(sideRecordPath(forName: name))
                        return true
                    }
                } else {
                    _ = XattrCalls.remove(full, Self.xattrName)
                    unlink(sideRecordPath(forName: name))
                    return true
                }
            }
            let side = sideRecordPath(forName: name)
            guard let encoded else {
                unlink(side)
                return true
            }
            let temp = directory + "/.tmp-\(getpid())-\(tempCounter.wrappingAdd(1, ordering: .relaxed).newValue)"
            _ = try DiskCacheFileSystem.writeNewFile(encoded, at: temp, date: now(), xattr: nil)
            guard rename(temp, side) == 0 else {
                unlink(temp)
                throw WebImageError.cacheIO(reason: "rename to \(side): \(DiskCacheFileSystem.errorText())")
            }
            return true
        }
    }
}
