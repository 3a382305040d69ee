import ArgumentParser
import Foundation
import WebImage

/// `webimage info FILE...`: format, size, frames, loop count, orientation and animation of each
/// file, read from the header; with `--decode`, a full timed decode too.
struct InfoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Show format, size, frames, loop count and orientation of image files.",
        discussion: """
            Sizes are as stored; `orientation` (EXIF 1–8) says how to turn the pixels to show them \
            upright. A file that cannot be read or decoded is reported with its error, the other \
            files are still processed, and the exit status is non-zero.
            """)

    @Argument(help: "Image files to inspect.")
    var files: [String]

    @Flag(help: "Print one JSON object per line per file instead of a table.")
    var json = false

    @Flag(help: "Also decode each file fully and report the decode time in milliseconds.")
    var decode = false

    func validate() throws {
        if files.isEmpty { throw ValidationError("Give at least one image file.") }
    }

    func run() throws {
        var anyFailed = false
        if json {
            for file in files {
                let report = ImageReport.inspect(path: file, decode: decode)
                anyFailed = anyFailed || report.failed
                Console.out(try report.jsonLine())
            }
        } else {
            let reports = files.map { ImageReport.inspect(path: $0, decode: decode) }
            anyFailed = reports.contains(where: \.failed)
            for line in Self.table(reports, decode: decode).render() { Console.out(line) }
        }
        if anyFailed { throw ExitCode.failure }
    }

    /// The aligned table of `reports`.
    static func table(_ reports: [ImageReport], decode: Bool) -> TextTable {
        var headers = ["FILE", "FORMAT", "SIZE", "FRAMES", "LOOP", "ORIENT", "ANIMATED"]
        if decode { headers.append("DECODE MS") }
        headers.append("STATUS")
        var table = TextTable(headers: headers, rightAligned: decode ? [3, 4, 5, 7] : [3, 4, 5])
        for report in reports {
            var row: [TextTable.Cell] = [
                TextTable.Cell(report.file),
                TextTable.Cell(report.format ?? "-", .cyan),
                TextTable.Cell(report.width.flatMap { w in report.height.map { "\(w)x\($0)" } } ?? "-"),
                TextTable.Cell(report.frames.map(String.init) ?? "-"),
                TextTable.Cell(report.loopCount.map { $0 == 0 ? "forever" : String($0) } ?? "-"),
                TextTable.Cell(report.orientation.map(String.init) ?? "-"),
                TextTable.Cell(report.animated.map { $0 ? "yes" : "no" } ?? "-"),
            ]
            if decode { row.append(TextTable.Cell(report.decodeMs.map { String(format: "%.2f", $0) } ?? "-")) }
            row.append(report.error.map { TextTable.Cell("error: \($0)", .red) } ?? TextTable.Cell("ok", .green))
            table.append(row)
        }
        return table
    }
}
