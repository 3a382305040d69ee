import Foundation
import Testing
import WebImageCodecs
import WebImageCore
import WebImageTesting

/// PDF pages drawn by ``PDFCoder`` (poppler-glib) from documents written by the test.
@Suite("PDF decoding")
struct PDFDecodeTests {
    @Test("Given a two-page PDF, then page 1 is drawn at the requested size and the page count is the frame count")
    func firstPage() throws {
        let data = TestPDF.twoPages
        let coder = PDFCoder()
        #expect(coder.canDecode(data))
        let full = try coder.decode(data, options: .default)
        try #require(full.pixelSize == PixelSize(width: 200, height: 100))
        #expect(full.format == .pdf && full.frames.count == 1)
        #expect(full.pixels.pixel(x: 50, y: 50) == RGBA(r: 255, g: 0, b: 0))
        #expect(full.pixels.pixel(x: 150, y: 50) == RGBA(r: 255, g: 255, b: 255))
        for (box, expected) in [(PixelSize(width: 100, height: 100), PixelSize(width: 100, height: 50)),
                                (PixelSize(width: 600, height: 600), PixelSize(width: 600, height: 300))] {
            let image = try coder.decode(data, options: DecodeOptions(thumbnailPixelSize: box))
            try #require(image.pixelSize == expected)
            #expect(image.pixels.pixel(x: expected.width / 4, y: expected.height / 2) == RGBA(r: 255, g: 0, b: 0))
            #expect(image.pixels.pixel(x: expected.width * 3 / 4, y: expected.height / 2) == RGBA(r: 255, g: 255, b: 255))
        }
        let stretched = try coder.decode(data, options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 50, height: 50), preserveAspectRatio: false))
        #expect(stretched.pixelSize == PixelSize(width: 50, height: 50))
        let metadata = try coder.readMetadata(data)
        #expect(metadata.frameCount == 2 && metadata.pixelSize == PixelSize(width: 200, height: 100) && !metadata.isAnimated)
        #expect(try CodersManager.shared.decode(data, options: .default).format == .pdf)
    }

    @Test("Given a chosen page, then that page is drawn; past the last page is badImageData")
    func chosenPage() throws {
        let image = try PDFCoder(pageIndex: 1).decode(TestPDF.twoPages, options: .default)
        try #require(image.pixelSize == PixelSize(width: 100, height: 300))
        #expect(image.pixels.pixel(x: 50, y: 150) == RGBA(r: 0, g: 0, b: 255))
        do {
            _ = try PDFCoder(pageIndex: 2).decode(TestPDF.twoPages, options: .default)
            Issue.record("a third page was drawn")
        } catch WebImageError.badImageData {}
    }

    @Test("Given an encrypted or a broken PDF, then typed errors")
    func failures() throws {
        let encrypted = TestPDF.make([TestPDF.Page(width: 10, height: 10, content: "0 g 0 0 10 10 re f")], encrypted: true)
        do {
            _ = try PDFCoder().decode(encrypted, options: .default)
            Issue.record("an encrypted PDF was drawn")
        } catch WebImageError.unsupportedFormat(let format, _) {
            #expect(format == .pdf)
        }
        do {
            _ = try PDFCoder().decode(Data("%PDF-1.4\nnothing here".utf8), options: .default)
            Issue.record("a broken PDF was drawn")
        } catch WebImageError.badImageData {}
    }

    @Test("Given limits smaller than the page, then imageTooLarge before drawing")
    func limits() throws {
        var limits = DecodeLimits()
        limits.maxPixelCount = 200 * 100 - 1
        #expect(throws: WebImageError.self) { try PDFCoder().decode(TestPDF.twoPages, options: DecodeOptions(limits: limits)) }
    }

    @Test("Given the corpus PDF, then it decodes", .enabled(if: Corpus.isAvailable))
    func corpus() throws {
        let data = try Corpus.data("sdwebimage/TestImage.pdf")
        let image = try CodersManager.shared.decode(data, options: .default)
        #expect(image.format == .pdf && image.width > 0)
    }
}
