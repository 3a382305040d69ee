import Dispatch
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A ``ResultStore`` in a directory (`--result-store /path` or `file:///path`), shareable by
/// every instance that mounts it: one file per entry, `DIR/ab/abcdef…` (the first two hex
/// digits of the key as a subdirectory). An entry is written to a temporary file beside it and
/// renamed into place, so readers on any instance see a whole entry or none.
///
/// The directory itself must exist: a missing one (an unmounted volume) is an error, not
/// created again, so a store that went away is reported rather than silently written to the
/// disk under it. File work runs on Dispatch's global threads, not the concurrency pool's.
///
/// A write that never renamed its temporary file (the process was killed) leaves a `.tmp-*`
/// file in its shard. At start the store sweeps the shards in the background and removes the
/// ones not written for ``temporaryFileMaxAge``: another instance's write in progress is younger.
public final class DirectoryResultStore: ResultStore {
    /// The store's directory.
    public let directory: URL
    /// The largest body read or written; bigger entries are skipped (read as none).
    public let maxEntryBytes: Int
    /// How long a `.tmp-*` file must have gone unwritten before the sweep at start removes it
    /// (seconds; default one hour, far longer than any write).
    public let temporaryFileMaxAge: TimeInterval
    private let sweep: Task<Int, Never>

    /// A store in `directory`, holding results of up to `maxEntryBytes` bytes each; starts the
    /// sweep of `.tmp-*` files older than `temporaryFileMaxAge`.
    public init(directory: URL, maxEntryBytes: Int = 64 * 1024 * 1024, temporaryFileMaxAge: TimeInterval = 3600) {
        let directory = directory.standardizedFileURL
        self.directory = directory
        self.maxEntryBytes = max(0, maxEntryBytes)
        self.temporaryFileMaxAge = temporaryFileMaxAge
        sweep = Task(priority: .background) {
            (try? await Self.offload { () throws(DirectoryResultStoreError) -> Int in
                Self.removeTemporaryFiles(in: directory, olderThan: Date(timeIntervalSinceNow: -temporaryFileMaxAge))
            }) ?? 0
        }
    }

    /// How many `.tmp-*` files the sweep at start removed, once it has finished.
    public var removedTemporaryFiles: Int {
        get async { await sweep.value }
    }

    /// Removes the `.tmp-*` regular files last written before `cutoff` from the shard
    /// directories (two hex digits) of `directory`; symbolic links are not followed. Returns
    /// how many it removed.
    private static func removeTemporaryFiles(in directory: URL, olderThan cutoff: Date) -> Int {
        let files = FileManager.default
        guard let shards = try? files.contentsOfDirectory(atPath: directory.path) else { return 0 }
        var removed = 0
        for shard in shards where shard.utf8.count == 2 && shard.utf8.allSatisfy({ HexBytes.value(of: $0) != nil }) {
            let shardPath = directory.appendingPathComponent(shard).path
            guard (try? files.attributesOfItem(atPath: shardPath))?[.type] as? FileAttributeType == .typeDirectory,
                let names = try? files.contentsOfDirectory(atPath: shardPath)
            else { continue }
            for name in names where name.hasPrefix(".tmp-") {
                let path = shardPath + "/" + name
                guard let attributes = try? files.attributesOfItem(atPath: path),
                    attributes[.type] as? FileAttributeType == .typeRegular,
                    let written = attributes[.modificationDate] as? Date, written < cutoff
                else { continue }
                if unlink(path) == 0 { removed += 1 }
            }
        }
        return removed
    }

    /// Where `key`'s entry lives.
    func path(for key: ResultStoreKey) -> URL {
        directory.appendingPathComponent(String(key.name.prefix(2)), isDirectory: true).appendingPathComponent(key.name)
    }

    public func entry(for key: ResultStoreKey) async throws -> StoredResult? {
        let file = path(for: key), directory = directory, maxEntryBytes = maxEntryBytes
        let limit = maxEntryBytes + StoredResult.magic.count + 4 + StoredResult.maxHeaderBytes
        return try await Self.offload { () throws(DirectoryResultStoreError) -> StoredResult? in
            guard let handle = FileHandle(forReadingAtPath: file.path) else {
                guard Self.isDirectory(directory) else { throw .missingDirectory(directory.path) }
                return nil
            }
            defer { try? handle.close() }
            do {
                let size = try handle.seekToEnd()
                guard size <= UInt64(limit) else { return nil }
                try handle.seek(toOffset: 0)
                guard let data = try handle.read(upToCount: Int(size)), data.count == Int(size) else { return nil }
                guard let result = StoredResult(encoded: data), result.body.count <= maxEntryBytes else { return nil }
                return result
            } catch {
                throw .unreadable(file.path, "\(error)")
            }
        }
    }

    public func store(_ result: StoredResult, for key: ResultStoreKey) async throws {
        guard result.body.count <= maxEntryBytes else { return }
        let file = path(for: key), directory = directory
        try await Self.offload { () throws(DirectoryResultStoreError) in
            guard Self.isDirectory(directory) else { throw .missingDirectory(directory.path) }
            let shard = file.deletingLastPathComponent()
            if !Self.isDirectory(shard) {
                do {
                    try FileManager.default.createDirectory(at: shard, withIntermediateDirectories: false)
                } catch {
                    // Another instance may have made it meanwhile.
                    guard Self.isDirectory(shard) else { throw .unwritable(shard.path, "\(error)") }
                }
            }
            let temporary = shard.appendingPathComponent(".tmp-\(UUID().uuidString)")
            do {
                let data = try result.encoded()
                try data.write(to: temporary, options: [.withoutOverwriting])
            } catch {
                try? FileManager.default.removeItem(at: temporary)
                throw .unwritable(temporary.path, "\(error)")
            }
            guard rename(temporary.path, file.path) == 0 else {
                let reason = String(cString: strerror(errno))
                try? FileManager.default.removeItem(at: temporary)
                throw .unwritable(file.path, reason)
            }
        }
    }

    private static func isDirectory(_ url: URL) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) && isDirectory.boolValue
    }

    /// Runs blocking file work on a Dispatch thread.
    private static func offload<T: Sendable>(
        _ work: @escaping @Sendable () throws(DirectoryResultStoreError) -> T
    ) async throws(DirectoryResultStoreError) -> T {
        let result: Result<T, DirectoryResultStoreError> = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: Result { () throws(DirectoryResultStoreError) -> T in try work() })
            }
        }
        return try result.get()
    }
}
