import ArgumentParser
import Foundation
import WebImage

/// `webimage demo --decode-only`: inspects and decodes a set of sample images — from the corpus
/// when present, otherwise generated in memory — writes a thumbnail of each, and checks that
/// every outcome is the expected one.
struct DecodeTour {
    /// Where the thumbnails go.
    var directory: URL

    /// Edge of the square the thumbnails are fit into.
    static let thumbnailEdge = 128

    func run() throws {
        let coders = CodersManager.shared
        let corpusSamples = DemoSample.fromCorpus()
        let samples = corpusSamples ?? DemoSample.generated(coders: coders)
        Console.out(Console.styled("webimage demo --decode-only", .bold))
        Console.out("inputs:     \(corpusSamples != nil ? "test corpus" : "generated in memory (no corpus found)")")
        Console.out("coders:     \(coders.coders.count) registered\(coders.coders.isEmpty ? " (header reading only)" : "")")
        Console.out("thumbnails: \(directory.path)")
        Console.out("")

        var table = TextTable(
            headers: ["SAMPLE", "FORMAT", "SIZE", "FRAMES", "ORIENT", "DECODE MS", "THUMBNAIL", "RESULT"],
            rightAligned: [3, 4, 5])
        var tally = Tally()
        for (index, sample) in samples.enumerated() {
            let outcome = run(sample, index: index, into: directory, coders: coders)
            tally.add(outcome)
            let report = outcome.report
            table.append([
                TextTable.Cell(sample.label),
                TextTable.Cell(report.format ?? "-", .cyan),
                TextTable.Cell(report.width.flatMap { w in report.height.map { "\(w)x\($0)" } } ?? "-"),
                TextTable.Cell(report.frames.map(String.init) ?? "-"),
                TextTable.Cell(report.orientation.map(String.init) ?? "-"),
                TextTable.Cell(report.decodeMs.map { String(format: "%.2f", $0) } ?? "-"),
                TextTable.Cell(outcome.thumbnail ?? "-"),
                TextTable.Cell((outcome.asExpected ? "✓ " : "✗ ") + outcome.summary, outcome.asExpected ? .green : .red),
            ])
        }
        for line in table.render() { Console.out(line) }
        Console.out("")
        let verdict = tally.unexpected == 0
            ? Console.styled("all outcomes as expected", .green)
            : Console.styled("\(tally.unexpected) unexpected outcome\(tally.unexpected == 1 ? "" : "s")", .red)
        Console.out(
            "\(samples.count) samples: \(tally.decoded) decoded, \(tally.headerOnly) header only (no coder), "
                + "\(tally.failedCleanly) failed cleanly as expected; \(tally.thumbnails) thumbnails, "
                + "decode total \(String(format: "%.1f", tally.decodeMs)) ms — \(verdict)")
        if tally.unexpected > 0 { throw ExitCode.failure }
    }

    /// What happened to one sample.
    struct Outcome {
        var report: ImageReport
        var asExpected: Bool
        var summary: String
        var thumbnail: String?
        var category: Category

        enum Category { case decoded, headerOnly, failedCleanly, unexpected }
    }

    /// Running totals for the summary line.
    struct Tally {
        var decoded = 0
        var headerOnly = 0
        var failedCleanly = 0
        var unexpected = 0
        var thumbnails = 0
        var decodeMs = 0.0

        mutating func add(_ outcome: Outcome) {
            switch outcome.category {
            case .decoded: decoded += 1
            case .headerOnly: headerOnly += 1
            case .failedCleanly: failedCleanly += 1
            case .unexpected: unexpected += 1
            }
            if outcome.thumbnail != nil { thumbnails += 1 }
            decodeMs += outcome.report.decodeMs ?? 0
        }
    }

    private func run(_ sample: DemoSample, index: Int, into directory: URL, coders: CodersManager) -> Outcome {
        let report = ImageReport.inspect(sample.data, file: sample.label, decode: true, keepImage: true, coders: coders)
        switch sample.kind {
        case .malformed:
            guard let code = report.errorCode else {
                return Outcome(report: report, asExpected: false, summary: "decoded, but should have failed", category: .unexpected)
            }
            return Outcome(report: report, asExpected: true, summary: "failed cleanly (\(code))", category: .failedCleanly)
        case .valid where !coders.canDecode(sample.data):
            // No coder: the header must still be read, and decoding must say "unsupported".
            if report.width != nil, report.errorCode == "unsupportedFormat" {
                return Outcome(report: report, asExpected: true, summary: "header read; no coder decodes it", category: .headerOnly)
            }
            return Outcome(report: report, asExpected: false, summary: report.error ?? "decoded without a coder?", category: .unexpected)
        case .valid:
            guard let image = report.decodedImage else {
                return Outcome(report: report, asExpected: false, summary: report.error ?? "not decoded", category: .unexpected)
            }
            var outcome = Outcome(
                report: report, asExpected: true,
                summary: "decoded \(image.width)x\(image.height), \(image.frames.count) frame\(image.frames.count == 1 ? "" : "s")",
                category: .decoded)
            do {
                outcome.thumbnail = try writeThumbnail(of: sample, index: index, isAnimated: image.isAnimated, into: directory, coders: coders)
            } catch {
                outcome.asExpected = false
                outcome.category = .unexpected
                outcome.summary = "thumbnail failed: \(ImageReport.message(for: error))"
            }
            return outcome
        }
    }

    /// Writes a thumbnail of `sample` (animated as WebP or GIF when an encoder can, else the
    /// first frame as PNG, JPEG, WebP or GIF) and returns its file name, `nil` without encoders.
    private func writeThumbnail(
        of sample: DemoSample, index: Int, isAnimated: Bool, into directory: URL, coders: CodersManager
    ) throws -> String? {
        let animatedFormats: [ImageFormat] = isAnimated ? [.webp, .gif] : []
        guard let format = (animatedFormats + [.png, .jpeg, .webp, .gif]).first(where: coders.canEncode) else {
            return nil
        }
        var conversion = ImageConversion(format: format, coders: coders)
        conversion.decodeOptions.thumbnailPixelSize = PixelSize(width: Self.thumbnailEdge, height: Self.thumbnailEdge)
        conversion.decodeOptions.firstFrameOnly = animatedFormats.isEmpty
        let base = (sample.name as NSString).deletingPathExtension
        let name = String(format: "%02d-", index + 1) + base + ".thumb." + format.fileExtension
        let result = try conversion.convert(sample.data, to: directory.appendingPathComponent(name))
        return "\(name) (\(result.pixelSize.width)x\(result.pixelSize.height))"
    }
}
