import Foundation
import WebImage

/// How one request of a URL ended, without the image (a long prefetch list must not keep its
/// images alive just to count them).
enum LoadOutcome: Equatable {
    case downloaded(bytes: Int)
    case disk
    case memory
    case failed

    init(_ result: Result<ImageResult, WebImageError>) {
        switch result {
        case .success(let value):
            switch value.cacheType {
            case .memory: self = .memory
            case .disk: self = .disk
            case .none, .all: self = .downloaded(bytes: value.data?.count ?? 0)
            }
        case .failure:
            self = .failed
        }
    }

    /// Lower is better when a URL was requested more than once.
    var rank: Int {
        switch self {
        case .downloaded: 0
        case .disk: 1
        case .memory: 2
        case .failed: 3
        }
    }
}

/// What a `fetch` or `prefetch` run did. Each distinct URL counts once, in exactly one of
/// downloaded, disk hits, memory hits or failed (by the best outcome of its requests, in that
/// order); every further occurrence of a URL in the list counts as coalesced. `blacklisted` counts the failed
/// URLs the run put on the failed-URL list (permanent failures); `bytes` are the bytes
/// downloaded.
struct LoadSummary: Codable, Equatable {
    var requested = 0
    var downloaded = 0
    var memoryHits = 0
    var diskHits = 0
    var coalesced = 0
    var failed = 0
    var blacklisted = 0
    var bytes = 0
    var seconds = 0.0
    /// `prefetch` only: URLs the prefetcher finished and skipped (absent from `fetch` output).
    var finished: Int?
    var skipped: Int?

    /// Counts one distinct URL from the outcomes of all its requests: the first of them counts
    /// by the best outcome (downloaded, then disk, then memory, then failed), the others as
    /// coalesced. Choosing by rank rather than by arrival keeps the counts independent of
    /// timing: a repeat may join the running download, or hit memory before the first request
    /// has even completed.
    mutating func record(_ outcomes: [LoadOutcome], blacklisted isListed: Bool) {
        guard let best = outcomes.min(by: { $0.rank < $1.rank }) else { return }
        coalesced += outcomes.count - 1
        switch best {
        case .downloaded(let size):
            downloaded += 1
            bytes += size
        case .disk: diskHits += 1
        case .memory: memoryHits += 1
        case .failed:
            failed += 1
            if isListed { blacklisted += 1 }
        }
    }

    /// The summary as one line of JSON.
    func jsonLine() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }

    /// The summary as an aligned two-column table.
    func table() -> TextTable {
        var table = TextTable(headers: ["", "URLS"], rightAligned: [1])
        var rows: [(String, String, Console.Style?)] = [
            ("requested", String(requested), nil),
            ("downloaded", String(downloaded), nil),
            ("memory hits", String(memoryHits), nil),
            ("disk hits", String(diskHits), nil),
            ("coalesced", String(coalesced), nil),
            ("failed", String(failed), failed > 0 ? .red : nil),
            ("blacklisted", String(blacklisted), blacklisted > 0 ? .yellow : nil),
        ]
        if let finished { rows.append(("finished", String(finished), nil)) }
        if let skipped { rows.append(("skipped", String(skipped), skipped > 0 ? .red : nil)) }
        rows.append(("bytes", String(bytes), nil))
        rows.append(("seconds", String(format: "%.3f", seconds), nil))
        for (label, value, style) in rows {
            table.append([TextTable.Cell(label), TextTable.Cell(value, style)])
        }
        return table
    }
}
