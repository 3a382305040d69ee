import Foundation
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The index file `.index` of a cache directory: a header line followed by an append-only log
/// of changes, shared by every process that uses the directory.
///
/// ```
/// WEBIMAGE-INDEX 1 modificationDate
/// +<entry name> <size> <date in ms since 1970>
/// -<entry name>
/// ```
///
/// Appends happen under the directory lock, one `write` per batch, so each process can bring
/// its in-memory ``DiskCacheIndex`` up to date by reading only what was appended since it last
/// looked (``sync(into:)``). When the log grows to more than twice the live entries it is
/// compacted: a snapshot is written to a temporary file and renamed over it; other processes
/// notice the new inode and reload. A line cut short by a crash is terminated by the next
/// writer and ignored by readers. Used only under ``DiskCacheStore``'s mutex and the lock.
final class DiskCacheJournal {
    enum SyncResult {
        case upToDate
        case needsRebuild
    }

    private let path: String
    private let directory: String
    private let expireDate: DiskCacheExpireDate
    private var fd: Int32 = -1
    private var inode: ino_t = 0
    private var offset = 0
    private var hasPartialTail = false
    private var lineCount = 0

    private var header: [UInt8] { Array("WEBIMAGE-INDEX 1 \(expireDate.rawValue)\n".utf8) }

    init(directory: String, expireDate: DiskCacheExpireDate) {
        self.directory = directory
        self.path = directory + "/.index"
        self.expireDate = expireDate
    }

    deinit {
        if fd >= 0 { close(fd) }
    }

    /// Applies to `index` what other processes appended since the last call; reloads the
    /// whole file when it was replaced. `.needsRebuild` when the file is missing or invalid.
    func sync(into index: inout DiskCacheIndex) -> SyncResult {
        guard let info = DiskCacheFileSystem.status(path) else { return .needsRebuild }
        if fd < 0 || info.st_ino != inode || Int(info.st_size) < offset {
            return reload(into: &index) ? .upToDate : .needsRebuild
        }
        let size = Int(info.st_size)
        guard size > offset else { return .upToDate }
        guard let bytes = readRange(from: offset, count: size - offset) else { return .needsRebuild }
        let consumed = apply(bytes[...], to: &index)
        offset += consumed
        hasPartialTail = consumed < bytes.count
        return .upToDate
    }

    /// Appends `records` (complete lines).
    func append(_ records: [UInt8]) throws {
        guard !records.isEmpty else { return }
        guard fd >= 0 else { throw WebImageError.cacheIO(reason: "index \(path) is not open") }
        var bytes = records
        if hasPartialTail { bytes.insert(UInt8(ascii: "\n"), at: 0) }
        try writeAll(fd, bytes)
        var info = stat()
        if fstat(fd, &info) == 0 { offset = Int(info.st_size) }
        hasPartialTail = false
        lineCount += records.reduce(0) { $1 == UInt8(ascii: "\n") ? $0 + 1 : $0 }
    }

    /// Whether the log holds so many superseded lines that it should be compacted.
    func needsCompaction(liveEntries: Int) -> Bool {
        lineCount > 2 * liveEntries + 4096
    }

    /// Replaces the file by a snapshot of `index` (temporary file + rename).
    func rewrite(from index: DiskCacheIndex) throws {
        var bytes = header
        bytes.reserveCapacity(header.count + index.count * 96)
        for (name, entry) in index.entries {
            Self.appendUpsert(name: name, size: entry.size, date: entry.date, to: &bytes)
        }
        let temp = directory + "/.index.tmp-\(getpid())"
        unlink(temp)
        var descriptor = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        if descriptor < 0 && errno == ENOENT {
            try DiskCacheFileSystem.createDirectory(directory)
            descriptor = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        }
        guard descriptor >= 0 else {
            throw WebImageError.cacheIO(reason: "create \(temp): \(DiskCacheFileSystem.errorText())")
        }
        do {
            try writeAll(descriptor, bytes)
        } catch {
            close(descriptor)
            unlink(temp)
            throw error
        }
        close(descriptor)
        guard rename(temp, path) == 0 else {
            unlink(temp)
            throw WebImageError.cacheIO(reason: "rename \(temp): \(DiskCacheFileSystem.errorText())")
        }
        try openFile()
        offset = bytes.count
        hasPartialTail = false
        lineCount = index.count
    }

    // MARK: records

    static func appendUpsert(name: String, size: Int, date: Int64, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "+"))
        bytes.append(contentsOf: name.utf8)
        bytes.append(UInt8(ascii: " "))
        bytes.append(contentsOf: String(size).utf8)
        bytes.append(UInt8(ascii: " "))
        bytes.append(contentsOf: String(date).utf8)
        bytes.append(UInt8(ascii: "\n"))
    }

    static func appendRemoval(name: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "-"))
        bytes.append(contentsOf: name.utf8)
        bytes.append(UInt8(ascii: "\n"))
    }

    // MARK: private

    private func openFile() throws {
        if fd >= 0 {
            close(fd)
            fd = -1
        }
        let descriptor = open(path, O_RDWR | O_APPEND | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw WebImageError.cacheIO(reason: "open \(path): \(DiskCacheFileSystem.errorText())")
        }
        inode = try DiskCacheFileSystem.inode(ofOpen: descriptor, path: path)
        fd = descriptor
    }

    private func reload(into index: inout DiskCacheIndex) -> Bool {
        do { try openFile() } catch { return false }
        var info = stat()
        guard fstat(fd, &info) == 0, let bytes = readRange(from: 0, count: Int(info.st_size)) else { return false }
        let expected = header
        guard bytes.count >= expected.count, Array(bytes[0..<expected.count]) == expected else { return false }
        index.removeAll()
        lineCount = 0
        let consumed = apply(bytes[expected.count...], to: &index)
        offset = expected.count + consumed
        hasPartialTail = offset < bytes.count
        return true
    }

    private func readRange(from start: Int, count: Int) -> [UInt8]? {
        guard count > 0 else { return [] }
        var bytes = [UInt8](repeating: 0, count: count)
        var total = 0
        while total < count {
            let got = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + total, count - total, off_t(start + total)) }
            if got < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if got == 0 { break }
            total += got
        }
        if total < count { bytes.removeSubrange(total...) }
        return bytes
    }

    /// Applies the complete lines of `bytes`; returns how many bytes they span.
    private func apply(_ bytes: ArraySlice<UInt8>, to index: inout DiskCacheIndex) -> Int {
        bytes.withUnsafeBufferPointer { buffer in
            var lineStart = 0
            var position = 0
            let count = buffer.count
            while position < count {
                if buffer[position] == UInt8(ascii: "\n") {
                    applyLine(UnsafeBufferPointer(rebasing: buffer[lineStart..<position]), to: &index)
                    lineCount += 1
                    lineStart = position + 1
                }
                position += 1
            }
            return lineStart
        }
    }

    /// Applies one record: `+name size date` or `-name`. Malformed lines are ignored.
    private func applyLine(_ line: UnsafeBufferPointer<UInt8>, to index: inout DiskCacheIndex) {
        guard let op = line.first else { return }
        let rest = UnsafeBufferPointer(rebasing: line[1...])
        if op == UInt8(ascii: "-") {
            guard Self.isEntryName(rest) else { return }
            index.remove(String(decoding: rest, as: UTF8.self))
            return
        }
        guard op == UInt8(ascii: "+"), let firstSpace = rest.firstIndex(of: UInt8(ascii: " ")) else { return }
        let name = UnsafeBufferPointer(rebasing: rest[..<firstSpace])
        let fields = UnsafeBufferPointer(rebasing: rest[(firstSpace + 1)...])
        guard let secondSpace = fields.firstIndex(of: UInt8(ascii: " ")),
            let size = Self.parseInt(UnsafeBufferPointer(rebasing: fields[..<secondSpace])), size >= 0,
            let date = Self.parseInt(UnsafeBufferPointer(rebasing: fields[(secondSpace + 1)...])),
            Self.isEntryName(name)
        else { return }
        index.upsert(String(decoding: name, as: UTF8.self), size: Int(size), date: date)
    }

    /// ``DiskCacheFileName/isEntryName(_:)`` on raw bytes.
    private static func isEntryName(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
        guard name.count >= 64, name.count <= 73 else { return false }
        for i in 0..<64 {
            let byte = name[i]
            guard (byte >= 0x30 && byte <= 0x39) || (byte >= 0x61 && byte <= 0x66) else { return false }
        }
        if name.count == 64 { return true }
        guard name[64] == UInt8(ascii: "."), name.count > 65 else { return false }
        for i in 65..<name.count {
            let byte = name[i]
            guard (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) else {
                return false
            }
        }
        return true
    }

    private static func parseInt(_ digits: UnsafeBufferPointer<UInt8>) -> Int64? {
        guard !digits.isEmpty, digits.count <= 18 else { return nil }
        var value: Int64 = 0
        var start = 0
        let negative = digits[0] == UInt8(ascii: "-")
        if negative { start = 1 }
        guard start < digits.count else { return nil }
        for i in start..<digits.count {
            let byte = digits[i]
            guard byte >= 0x30 && byte <= 0x39 else { return nil }
            value = value * 10 + Int64(byte - 0x30)
        }
        return negative ? -value : value
    }

    private func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try DiskCacheFileSystem.writeAll(descriptor, $0, path: path) }
    }
}
