import Foundation
import Testing
@testable import WebImageCodecs
import WebImageCore
import WebImageTesting

@Suite("JPEG marker scanner")
struct JPEGMarkerScannerTests {
    private func scanAll(_ data: Data) -> JPEGMarkerScanner {
        var scanner = JPEGMarkerScanner()
        data.withUnsafeBytes { scanner.scan($0) }
        return scanner
    }

    @Test("Given a progressive JPEG, when scanned whole or in growing prefixes, then both find every scan and the frame", .enabled(if: Corpus.isAvailable))
    func resumableScanMatchesWholeScan() throws {
        let data = try Corpus.data("jpeg-misc/progressive/3.jpg")
        let whole = scanAll(data)
        #expect(whole.completedScans == 11)
        #expect(whole.reachedEndOfImage)
        #expect(whole.frame == JPEGMarkerScanner.Frame(marker: 0xC2, precision: 8, height: 470, width: 650, components: 3))

        var incremental = JPEGMarkerScanner()
        var previous = 0
        for end in stride(from: 1, through: data.count, by: 97) + [data.count] {
            data.prefix(end).withUnsafeBytes { incremental.scan($0) }
            #expect(incremental.completedScans >= previous)
            previous = incremental.completedScans
        }
        #expect(incremental.completedScans == whole.completedScans)
        #expect(incremental.frame == whole.frame)
        #expect(incremental.reachedEndOfImage)
    }

    @Test("Given CMYK, 12-bit and non-JPEG data, when scanned, then the Adobe marker, precision and malformation are reported", .enabled(if: Corpus.isAvailable))
    func reportsHeaderFacts() throws {
        #expect(scanAll(try Corpus.data("generated-valid/cmyk_64x48.jpg")).hasAdobeMarker)
        #expect(!scanAll(try Corpus.data("generated-valid/baseline_444_64x48.jpg")).hasAdobeMarker)
        #expect(scanAll(try Corpus.data("jpeg-libjpeg-turbo/monkey12.jpg")).frame?.precision == 12)
        #expect(scanAll(Data("<html>".utf8)).isMalformed)
    }
}
