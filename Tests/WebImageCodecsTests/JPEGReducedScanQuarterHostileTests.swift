import CJPEGReduced
import Foundation
import Testing
import WebImageCore
import WebImageTesting

@testable import WebImageCodecs

/// Hostile progressive files at 1/4, where our decoder entropy-decodes every scan.
extension JPEGReducedScanHostileTests {
    /// A thumbnail of the 517×389 fixtures that decodes at 1/4 (130×98 covers it, 1/8 does not).
    static let quarterThumbnail = DecodeOptions(thumbnailPixelSize: PixelSize(width: 129, height: 97))

    @Test("Given a progressive file cut anywhere, then our 1/4 decode declines whole-file and as a download until every coefficient is exact, and the decode ends with an image or a typed error")
    func truncatedQuarter() throws {
        let data = try Self.progressive()
        let script = try Self.script(data)
        let whole = ProgressiveJPEGFixtures.own(data, denominator: 4)
        #expect(whole.code == 0)
        var cuts = [20, data.count - 1, data.count - 2]
        for scan in script.scans { cuts += [scan.range.lowerBound + 3, scan.range.lowerBound + scan.range.count / 2] }
        for cut in cuts {
            let prefix = data.prefix(cut)
            #expect(ProgressiveJPEGFixtures.own(prefix, denominator: 4).code != 0, "cut at \(cut)")
            let asDownload = ProgressiveJPEGFixtures.own(prefix, denominator: 4, acceptingPrefix: true)
            // Every scan is read at 1/4: a download gives pixels only once the last scan is in,
            // and then the whole file's.
            if asDownload.code == 0 {
                #expect(cut > script.scans[script.scans.count - 1].range.upperBound, "cut at \(cut)")
                #expect(asDownload.pixels == whole.pixels, "cut at \(cut)")
            }
            do {
                _ = try JPEGCoder().decode(prefix, options: Self.quarterThumbnail)
            } catch is WebImageError {
            } catch {
                Issue.record("cut at \(cut): untyped error \(error)")
            }
        }
    }

    @Test("Given seeded mutations of progressive files, then every 1/4 decode ends with an image or a typed error, and where our decoder and TurboJPEG both decode the pixels agree")
    func mutationsQuarter() throws {
        let sources = [
            try Self.progressive(),
            try ProgressiveJPEGFixtures.cjpeg(["-quality", "70", "-progressive", "-restart", "2B", "-sample", "1x1"]),
        ]
        var random = SeededRandom(seed: 0x4C5)
        var ownAgreed = 0
        for round in 0..<300 {
            var bytes = [UInt8](sources[round % sources.count])
            random.mutate(&bytes, maxEdits: 4)
            let data = Data(bytes)
            do {
                _ = try JPEGCoder().decode(data, options: Self.quarterThumbnail)
            } catch is WebImageError {
            } catch {
                Issue.record("round \(round): untyped error \(error)")
            }
            let own = ProgressiveJPEGFixtures.own(data, denominator: 4)
            if own.code == 0, let reference = ProgressiveJPEGFixtures.turboJPEG(data, denominator: 4) {
                #expect(own.pixels == reference, "round \(round): our decoder")
                ownAgreed += 1
            }
        }
        #expect(ownAgreed > 0)
    }

    @Test("Given end-of-band runs longer than the scan, broken Huffman tables and 1,000 scans, then at 1/4 our decoder gives TurboJPEG's pixels or declines")
    func handmadeQuarter() throws {
        for runBits: UInt32 in [0x3FFF, 0, 0x1234] {
            let data = Self.handmade(eobRunBits: runBits)
            let reference = try #require(ProgressiveJPEGFixtures.turboJPEG(data, denominator: 4), "TurboJPEG decodes it")
            let own = ProgressiveJPEGFixtures.own(data, denominator: 4)
            #expect(own.code == 0)
            #expect(own.pixels == reference)
        }
        let broken = [
            Self.handmade(dcCounts: [2] + Array(repeating: 0, count: 15), dcSymbols: [0, 3]),
            Self.handmade(dcCounts: [255] + Array(repeating: 0, count: 15), dcSymbols: [0, 3] + Array(repeating: 0, count: 253)),
            Self.handmade(dcSymbols: [0, 16]),
        ]
        for data in broken { #expect(ProgressiveJPEGFixtures.own(data, denominator: 4).code != 0) }
        // 896 scans are over TurboJPEG's scan limit; 448 over the AC scans decoded in step (at
        // 1/4 every AC scan is, each with its own reader).
        #expect(ProgressiveJPEGFixtures.own(Self.manyScans(components: 1, scanCount: 896), denominator: 4).code == Int(WI_JPEG_REDUCED_LIMIT))
        #expect(ProgressiveJPEGFixtures.own(Self.manyScans(components: 1, scanCount: 448), denominator: 4).code == Int(WI_JPEG_REDUCED_LIMIT))
        #expect(ProgressiveJPEGFixtures.own(Self.manyScans(components: 1, scanCount: 40), denominator: 4).code == Int(WI_JPEG_REDUCED_INCOMPLETE))
    }

    @Test("Given dequantised values beyond where libjpeg-turbo's C and SIMD reduced IDCTs agree, then our 1/4 decode declines and the public decode is the normal path's")
    func outOfRangeQuarter() throws {
        let data = Self.handmade(quant: 32767)
        // At 1/8 the luma is its DC alone (no such limit); at 1/4 its 2×2 IDCT would overflow
        // the SIMD version's 16-bit products.
        #expect(ProgressiveJPEGFixtures.own(data, denominator: 8).code == 0)
        #expect(ProgressiveJPEGFixtures.own(data, denominator: 4).code == Int(WI_JPEG_REDUCED_OUT_OF_RANGE))
        let image = try JPEGCoder().decode(data, scaleDenominator: 4, options: JPEGReducedScanTests.options)
        #expect(image.pixels.bytes == ProgressiveJPEGFixtures.turboJPEG(data, denominator: 4))
    }
}
