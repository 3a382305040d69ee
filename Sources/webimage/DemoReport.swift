import Foundation

/// One row of the demo's pass table: the pass's ``LoadSummary`` and the requests the server saw.
struct DemoPassRow {
    var name: String
    var summary: LoadSummary
    var serverRequests: Int

    /// The passes as one table. Counts are of distinct URLs (as `fetch` counts them), except
    /// REQUESTED (requests made), COALESCED (repeats of a URL) and SERVER REQ (requests the
    /// server received).
    static func table(_ rows: [DemoPassRow]) -> TextTable {
        var table = TextTable(
            headers: ["PASS", "REQUESTED", "DOWNLOADED", "MEMORY HITS", "DISK HITS", "COALESCED", "FAILED", "BLACKLISTED", "SERVER REQ", "SECONDS"],
            rightAligned: Set(1...9))
        for row in rows {
            let s = row.summary
            table.append([
                TextTable.Cell(row.name, .bold),
                TextTable.Cell(String(s.requested)),
                TextTable.Cell(String(s.downloaded)),
                TextTable.Cell(String(s.memoryHits), s.memoryHits > 0 ? .green : nil),
                TextTable.Cell(String(s.diskHits), s.diskHits > 0 ? .green : nil),
                TextTable.Cell(String(s.coalesced)),
                TextTable.Cell(String(s.failed), s.failed > 0 ? .red : nil),
                TextTable.Cell(String(s.blacklisted), s.blacklisted > 0 ? .yellow : nil),
                TextTable.Cell(String(row.serverRequests), .cyan),
                TextTable.Cell(String(format: "%.3f", s.seconds)),
            ])
        }
        return table
    }
}

/// The demo's expected outcomes and whether each happened.
struct DemoChecks {
    private struct Check {
        var passed: Bool
        var text: String
        var failure: String?
    }

    private var checks: [Check] = []

    /// Records a check: `text` says what was observed; `failure` adds detail when it failed.
    mutating func add(_ passed: Bool, _ text: String, failure: String? = nil) {
        checks.append(Check(passed: passed, text: text, failure: failure))
    }

    var allPassed: Bool { !checks.isEmpty && checks.allSatisfy(\.passed) }

    /// One line per check, marked ✓ or ✗.
    func lines() -> [String] {
        checks.map { check in
            if check.passed { return Console.styled("✓", .green) + " " + check.text }
            let detail = check.failure.map { $0.isEmpty ? "" : " — \($0)" } ?? ""
            return Console.styled("✗", .red) + " " + check.text + detail
        }
    }

    /// The closing line: success, or which checks failed.
    func verdict() -> String {
        let failed = checks.filter { !$0.passed }
        if failed.isEmpty { return Console.styled("demo passed: every expected outcome happened (\(checks.count) checks)", .green) }
        let names = failed.map { $0.text.split(separator: ":").first.map(String.init) ?? $0.text }
        return Console.styled(
            "demo FAILED: \(failed.count) of \(checks.count) checks did not hold — \(names.joined(separator: "; "))", .red)
    }
}
