import Foundation
import Testing
import WebImageCodecs
import WebImageCore
import WebImageTesting

/// `webimage info` and `convert` on TIFF, SVG and PDF files written by the test.
@Suite("webimage info and convert: TIFF, SVG, PDF")
struct TIFFSVGPDFCommandTests {
    static let svg = #"<svg xmlns="http://www.w3.org/2000/svg" width="120" height="60"><rect width="60" height="60" fill="red"/></svg>"#

    static func files(in directory: URL) throws -> (tiff: URL, svg: URL, pdf: URL, broken: URL) {
        let rgb: [UInt8] = Array(Array(repeating: [UInt8(0), 128, 255], count: 30 * 20).joined())
        let tiff = try TIFFTestWriter.write([
            TIFFTestPage(width: 30, height: 20, compression: 5, samples: rgb), TIFFTestPage(width: 30, height: 20, samples: rgb),
        ])
        let urls = (
            tiff: directory.appendingPathComponent("pages.tif"), svg: directory.appendingPathComponent("shape.svg"),
            pdf: directory.appendingPathComponent("pages.pdf"), broken: directory.appendingPathComponent("broken.tif"))
        try tiff.write(to: urls.tiff)
        try Data(svg.utf8).write(to: urls.svg)
        try TestPDF.twoPages.write(to: urls.pdf)
        // A valid header whose first directory claims more entries than the file holds.
        try Data([0x49, 0x49, 0x2A, 0x00, 0x08, 0x00, 0x00, 0x00, 0xFF, 0x7F, 0x00, 0x01]).write(to: urls.broken)
        return urls
    }

    @Test("Given TIFF, SVG and PDF files, when info --json runs, then sizes and page counts; libtiff prints nothing")
    func info() async throws {
        let directory = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let files = try Self.files(in: directory)
        let result = try await CLIRunner.run(["info", "--json", files.tiff.path, files.svg.path, files.pdf.path, files.broken.path])
        let objects = try InfoCommandTests.jsonObjects(result.stdout)
        try #require(objects.count == 4, "stdout: \(result.stdout) stderr: \(result.stderr)")
        #expect(objects[0]["format"] as? String == "tiff" && objects[0]["width"] as? Int == 30 && objects[0]["frames"] as? Int == 2)
        #expect(objects[1]["format"] as? String == "svg" && objects[1]["width"] as? Int == 120 && objects[1]["height"] as? Int == 60)
        #expect(objects[2]["format"] as? String == "pdf" && objects[2]["width"] as? Int == 200 && objects[2]["frames"] as? Int == 2)
        #expect(objects[3]["error"] is String)
        // libtiff's messages go into the typed error, never to standard error.
        #expect(!result.stderr.contains("TIFF"), "stderr: \(result.stderr)")
    }

    @Test("Given SVG and PDF, when converted with --thumbnail larger than the document, then PNGs drawn at that size", arguments: ["svg", "pdf"])
    func convert(format: String) async throws {
        let directory = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let files = try Self.files(in: directory)
        let output = directory.appendingPathComponent("out.png")
        let input = format == "svg" ? files.svg : files.pdf
        let result = try await CLIRunner.run(["convert", input.path, output.path, "--thumbnail", "400"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let image = try CodersManager.shared.decode(try Data(contentsOf: output), options: .default)
        try #require(image.pixelSize == PixelSize(width: 400, height: 200))
        #expect(image.pixels.pixel(x: 50, y: 100) == RGBA(r: 255, g: 0, b: 0))
    }
}
