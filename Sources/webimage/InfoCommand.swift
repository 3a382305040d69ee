import ArgumentParser
import Foundation
import WebImage

/// `webimage info FILE|URL...`: format, size, frames, loop count, orientation and animation of
/// each image, read from the header; with `--decode`, a full timed decode too. URLs (`http`,
/// `https`, `file`, `data`) are loaded through the library's loaders.
struct InfoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Show format, size, frames, loop count, orientation and colour profile of image files or URLs.",
        discussion: """
            Sizes are as stored; `orientation` (EXIF 1–8) says how to turn the pixels to show them \
            upright; `PROFILE` is the name of the colour profile the file carries (`-`: untagged, \
            read as sRGB). --placeholders adds the BlurHash (4 components on the longer side), \
            the ThumbHash (base64) and the five dominant colours with their shares, computed \
            from the first frame decoded at most 400 pixels on a side. Inputs may be paths or http, https, file or data URLs. An input that cannot be \
            read, loaded or decoded is reported with its error, the others are still processed, \
            and the exit status is non-zero.
            """)

    @Argument(help: ArgumentHelp("Image files or URLs (http, https, file, data) to inspect.", valueName: "file-or-url"))
    var files: [String]

    @Flag(help: "Print one JSON object per line per input instead of a table.")
    var json = false

    @Option(help: ArgumentHelp("For URLs: seconds a connection may wait for the server, to connect or between bytes.", valueName: "seconds"))
    var timeout = 15.0

    @OptionGroup(title: "Address policy (URLs)")
    var addressPolicy: AddressPolicyOptions
    @OptionGroup var maxTime: MaxTimeOption

    @Flag(help: "Also decode each file fully and report the decode time in milliseconds.")
    var decode = false

    @Flag(help: "Also compute the BlurHash, ThumbHash and five dominant colours (hex and share) from a small decode.")
    var placeholders = false

    func validate() throws {
        if files.isEmpty { throw ValidationError("Give at least one image file or URL.") }
        try OptionLimits.checkTimeout(timeout)
        try addressPolicy.validate()
    }

    func run() async throws {
        var anyFailed = false
        let loader = InputLoader(timeout: timeout, maxTime: maxTime, addressPolicy: addressPolicy.policy)
        var reports: [ImageReport] = []
        for file in files {
            let report = await inspect(file, loader: loader)
            anyFailed = anyFailed || report.failed
            if json { Console.out(try report.jsonLine()) } else { reports.append(report) }
        }
        await loader.shutdown()
        if !json {
            for line in Self.table(reports, decode: decode, placeholders: placeholders).render() { Console.out(line) }
        }
        if anyFailed { throw ExitCode.failure }
    }

    /// Reads or loads `input` and inspects it; an input that cannot be read or loaded gives a
    /// report with the error.
    private func inspect(_ input: String, loader: InputLoader) async -> ImageReport {
        let started = ContinuousClock.now
        let decode = self.decode
        let placeholders = self.placeholders
        guard InputLoader.url(input) != nil else {
            return await timed(input, started: started) { _ in
                ImageReport.inspect(path: input, decode: decode, placeholders: placeholders)
            }
        }
        do {
            let data = try await loader.data(for: input)
            return await timed(input, started: started) { _ in
                ImageReport.inspect(data, file: input, decode: decode, placeholders: placeholders)
            }
        } catch {
            var report = ImageReport(file: input, includesDecode: decode, includesPlaceholders: placeholders)
            report.error = "cannot load: \(error.description)"
            report.errorCode = error.code
            return report
        }
    }

    /// `work` under `--max-time`: a report with the `timedOut` error when the deadline ran out.
    private func timed(
        _ input: String, started: ContinuousClock.Instant, _ work: @escaping @Sendable (MaxTimeOption.Deadline) -> ImageReport
    ) async -> ImageReport {
        do {
            return try await maxTime.run(started: started, work)
        } catch {
            var report = ImageReport(file: input, includesDecode: decode, includesPlaceholders: placeholders)
            report.error = ImageReport.message(for: error)
            report.errorCode = (error as? WebImageError)?.code
            return report
        }
    }

    /// The aligned table of `reports`.
    static func table(_ reports: [ImageReport], decode: Bool, placeholders: Bool = false) -> TextTable {
        var headers = ["FILE", "FORMAT", "SIZE", "FRAMES", "LOOP", "ORIENT", "ANIMATED", "PROFILE"]
        if decode { headers.append("DECODE MS") }
        if placeholders { headers += ["BLURHASH", "THUMBHASH", "COLOURS"] }
        headers.append("STATUS")
        var table = TextTable(headers: headers, rightAligned: decode ? [3, 4, 5, 8] : [3, 4, 5])
        for report in reports {
            var row: [TextTable.Cell] = [
                TextTable.Cell(report.file),
                TextTable.Cell(report.format ?? "-", .cyan),
                TextTable.Cell(report.width.flatMap { w in report.height.map { "\(w)x\($0)" } } ?? "-"),
                TextTable.Cell(report.frames.map(String.init) ?? "-"),
                TextTable.Cell(report.loopCount.map { $0 == 0 ? "forever" : String($0) } ?? "-"),
                TextTable.Cell(report.orientation.map(String.init) ?? "-"),
                TextTable.Cell(report.animated.map { $0 ? "yes" : "no" } ?? "-"),
                TextTable.Cell(report.colorProfile ?? "-"),
            ]
            if decode { row.append(TextTable.Cell(report.decodeMs.map { String(format: "%.2f", $0) } ?? "-")) }
            if placeholders {
                row.append(TextTable.Cell(report.blurHash ?? "-"))
                row.append(TextTable.Cell(report.thumbHash ?? "-"))
                let colours = report.dominantColors?.map { "\($0.hex) \(Int(($0.share * 100).rounded()))%" }
                row.append(TextTable.Cell(colours?.joined(separator: ", ") ?? "-"))
            }
            row.append(report.error.map { TextTable.Cell("error: \($0)", .red) } ?? TextTable.Cell("ok", .green))
            table.append(row)
        }
        return table
    }
}
