// The disk cache's index journal, as another process (or a damaged disk) may have left it.
import Foundation
@testable import WebImage

extension FuzzTarget {
    /// The input is the `.index` file of a cache directory: it is synced into an index and the
    /// index emptied oldest first. A journal the reader refuses asks for a rebuild; it never traps.
    static let diskIndexTarget = FuzzTarget(
        name: "disk-index",
        summary: "DiskCacheJournal.sync (the .index log of +name size date / -name lines) into DiskCacheIndex, then every entry popped oldest first",
        maxLength: 65536, dictionary: "disk-index.dict", usesImageCorpus: false,
        seeds: { diskIndexSeeds.enumerated().map { ("index-\($0.offset)", Data($0.element.utf8)) } },
        run: { data in
            let directory = fuzzScratch
            try? data.write(to: URL(fileURLWithPath: directory + "/.index"))
            let journal = DiskCacheJournal(directory: directory, expireDate: .modificationDate)
            var index = DiskCacheIndex()
            _ = journal.sync(into: &index)
            var previous = Int64.min
            while let (_, entry) = index.popOldest() {
                if entry.date < previous { FuzzTarget.finding("index popped \(entry.date) after \(previous)") }
                previous = entry.date
            }
        })

    /// One scratch directory per process (libFuzzer runs inputs one after another in it).
    static let fuzzScratch: String = {
        let path = NSTemporaryDirectory() + "webimage-fuzz-\(ProcessInfo.processInfo.processIdentifier)"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }()

    static let diskIndexSeeds = [
        "WEBIMAGE-INDEX 1 modificationDate\n+0123456789abcdef0123456789abcdef 100 1700000000000\n-0123456789abcdef0123456789abcdef\n",
        "WEBIMAGE-INDEX 1 accessDate\n+aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa 5 1\n+bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb 99999999999999999999 2\n+cc",
    ]
}
