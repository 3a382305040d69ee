import Foundation
import WebImage

/// What a `fetch` or `prefetch` run did. Each distinct URL counts once, in exactly one of
/// downloaded, memory hits, disk hits or failed (by the outcome of its first request); every
/// further occurrence of a URL in the list counts as coalesced. `blacklisted` counts the failed
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

    /// Counts the outcome of the first request of a URL.
    mutating func record(_ result: Result<ImageResult, WebImageError>, blacklisted isListed: Bool) {
        switch result {
        case .success(let value):
            switch value.cacheType {
            case .memory: memoryHits += 1
            case .disk: diskHits += 1
            case .none, .all:
                downloaded += 1
                bytes += value.data?.count ?? 0
            }
        case .failure:
            failed += 1
            if isListed { blacklisted += 1 }
        }
    }

    /// The summary as one line of JSON.
    func jsonLine() throws -> String {
        String(decoding: try JSONEncoder().encode(self), as: UTF8.self)
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
