import Foundation
import Testing
import WebImageCore
import WebImageTesting

@testable import WebImageCodecs

@Suite("JPEG reduced-scan decode, hostile files")
struct JPEGReducedScanHostileTests {
    static let thumbnail = DecodeOptions(thumbnailPixelSize: PixelSize(width: 32, height: 24))

    /// Decodes `data` as a 1/8 thumbnail: an image, or a typed error (anything else fails).
    @discardableResult
    static func imageOrTypedError(_ data: Data, _ label: String) -> Image? {
        do {
            return try JPEGCoder().decode(data, options: thumbnail)
        } catch is WebImageError {
            return nil
        } catch {
            Issue.record("\(label): untyped error \(error)")
            return nil
        }
    }

    static func script(_ data: Data, maxScans: Int = JPEGScanScript.turboJPEGScanLimit) throws -> JPEGScanScript {
        try data.withUnsafeBytes { b in try JPEGScanScript(b, maxScans: maxScans) }
    }

    static func progressive() throws -> Data {
        try ProgressiveJPEGFixtures.cjpeg(["-quality", "85", "-progressive"])
    }

    @Test("Given a progressive file cut anywhere, then the walk reports truncation and the decode ends with an image or a typed error")
    func truncated() throws {
        let data = try Self.progressive()
        let script = try Self.script(data)
        // Inside the header, inside each scan's header and data, and just before EOI.
        var cuts = [20, data.count - 1, data.count - 2]
        for scan in script.scans { cuts += [scan.range.lowerBound + 3, scan.range.lowerBound + scan.range.count / 2] }
        for cut in cuts {
            let prefix = data.prefix(cut)
            #expect(throws: JPEGScanScript.Refusal.truncated) { try Self.script(prefix) }
            #expect(JPEGReducedScanTests.reduced(prefix) == nil)
            // The normal path refuses a truncated file, as before.
            #expect(Self.imageOrTypedError(prefix, "cut at \(cut)") == nil)
            // Walked as a download, the scans before the cut count and the cut one does not.
            if cut > script.scans[0].range.lowerBound {
                let walked = try prefix.withUnsafeBytes { try JPEGScanScript($0, acceptingPrefix: true) }
                #expect(walked.scans == Array(script.scans.prefix { $0.range.upperBound + 2 <= cut }), "cut at \(cut)")
            }
        }
        // Cut inside the DC refinement: the DC is still at Al 1.
        let refinement = try #require(script.scans.first { $0.isDC && $0.approximationHigh > 0 })
        let cutRefinement = data.prefix(refinement.range.lowerBound + refinement.range.count / 2)
        let walked = try cutRefinement.withUnsafeBytes { try JPEGScanScript($0, acceptingPrefix: true) }
        #expect(walked.coefficientBits.allSatisfy { $0[0] == 1 })
        #expect(JPEGReducedScanDecode.plan(walked) == nil)
    }

    @Test("Given scans reordered against the progression rules, then the walk refuses them and the decode is the normal path's")
    func reordered() throws {
        let data = try Self.progressive()
        let script = try Self.script(data)
        let scans = script.scans
        // The DC refinement first; an AC refinement before its first scan; the first AC scan before the DC.
        let dcRefinement = try #require(scans.firstIndex { $0.isDC && $0.approximationHigh > 0 })
        let acRefinement = try #require(scans.firstIndex { !$0.isDC && $0.approximationHigh > 0 })
        let firstAC = try #require(scans.firstIndex { !$0.isDC })
        for (a, b) in [(0, dcRefinement), (firstAC, acRefinement), (0, firstAC)] {
            var bytes = [UInt8](data)
            let ra = scans[a].range, rb = scans[b].range
            // Swap the two scans' bytes (a before b).
            let swapped = Array(bytes[rb]) + Array(bytes[ra.upperBound..<rb.lowerBound]) + Array(bytes[ra])
            bytes.replaceSubrange(ra.lowerBound..<rb.upperBound, with: swapped)
            let reordered = Data(bytes)
            // Refused for its progression, or for a Huffman table the moved scan uses before its
            // definition (which stays in place).
            #expect(throws: JPEGScanScript.Refusal.self) { try Self.script(reordered) }
            #expect(JPEGReducedScanTests.reduced(reordered) == nil)
            Self.imageOrTypedError(reordered, "swap \(a) \(b)")
            if let reference = ProgressiveJPEGFixtures.turboJPEGEighth(reordered) {
                let image = try JPEGCoder().decode(reordered, scaleDenominator: 8, options: JPEGReducedScanTests.options)
                #expect(image.pixels.bytes == reference)
            }
        }
    }

    @Test("Given a file whose DC refinement scan was removed, then the reduced decode does not apply and the pixels are the normal path's")
    func missingDCRefinement() throws {
        let data = try Self.progressive()
        let script = try Self.script(data)
        let refinement = try #require(script.scans.first { $0.isDC && $0.approximationHigh > 0 })
        var bytes = [UInt8](data)
        bytes.removeSubrange(refinement.range)
        let damaged = Data(bytes)
        let walked = try Self.script(damaged)
        #expect(walked.coefficientBits.allSatisfy { $0[0] == 1 })
        #expect(JPEGReducedScanDecode.plan(walked) == nil)
        #expect(JPEGReducedScanTests.reduced(damaged) == nil)
        let image = try JPEGCoder().decode(damaged, scaleDenominator: 8, options: JPEGReducedScanTests.options)
        #expect(image.pixels.bytes == ProgressiveJPEGFixtures.turboJPEGEighth(damaged))
    }

    /// A valid 8×8 progressive JPEG of `components` flat components with `scanCount` scans:
    /// each component's DC coded at Al 13 and refined bit by bit, then every AC coefficient
    /// coded alone at Al 13 and refined bit by bit (every block is zero, so each scan's data is
    /// one code). Up to 896 valid scans per component.
    static func manyScans(components: Int, scanCount: Int) -> Data {
        var b: [UInt8] = [0xFF, 0xD8]
        b += [0xFF, 0xDB, 0x00, 0x43, 0x00] + Array(repeating: 1, count: 64)
        b += [0xFF, 0xC2, 0x00, UInt8(8 + 3 * components), 8, 0, 8, 0, 8, UInt8(components)]
        for c in 0..<components { b += [UInt8(c + 1), 0x11, 0] }
        // One DC and one AC table, each with the single symbol 0 (difference 0 / EOB) coded "0".
        for tableClass: UInt8 in [0x00, 0x10] {
            b += [0xFF, 0xC4, 0x00, 0x14, tableClass, 1] + Array(repeating: 0, count: 15) + [0]
        }
        var written = 0
        func sos(_ component: Int, _ ss: Int, _ se: Int, _ ah: Int, _ al: Int) {
            guard written < scanCount else { return }
            b += [0xFF, 0xDA, 0x00, 0x08, 1, UInt8(component + 1), 0x00, UInt8(ss), UInt8(se), UInt8(ah << 4 | al)]
            b += [0x7F]  // one "0" code (or refinement bit 0), padded with ones
            written += 1
        }
        for c in 0..<components {
            sos(c, 0, 0, 0, 13)
            for al in stride(from: 12, through: 0, by: -1) { sos(c, 0, 0, al + 1, al) }
        }
        for c in 0..<components {
            for k in 1...63 {
                sos(c, k, k, 0, 13)
                for al in stride(from: 12, through: 0, by: -1) { sos(c, k, k, al + 1, al) }
            }
        }
        b += [0xFF, 0xD9]
        return Data(b)
    }

    @Test("Given 1,000 scans, then the walk stops at TurboJPEG's scan limit and the decode ends with a typed error")
    func thousandScans() throws {
        let data = Self.manyScans(components: 2, scanCount: 1000)
        // The file is well formed: walked without a limit, all its scans are there.
        #expect(try Self.script(data, maxScans: 2000).scans.count == 1000)
        #expect(throws: JPEGScanScript.Refusal.tooManyScans) { try Self.script(data) }
        #expect(JPEGReducedScanTests.reduced(data) == nil)
        #expect(throws: WebImageError.self) { try JPEGCoder().decode(data, options: Self.thumbnail) }
        // Within the limit, a complete file of the same kind takes the reduced path.
        let small = Self.manyScans(components: 1, scanCount: 448)
        let walked = try Self.script(small)
        #expect(walked.scans.count == 448)
        #expect(JPEGReducedScanDecode.plan(walked) == nil, "coefficients 32-63 are not exact yet")
        let complete = Self.manyScans(components: 1, scanCount: 896)
        #expect(throws: JPEGScanScript.Refusal.tooManyScans) { try Self.script(complete) }
        #expect(try Self.script(complete, maxScans: 896).coefficientBits[0].allSatisfy { $0 == 0 })
    }

    @Test("Given seeded mutations of progressive files, then every decode ends with an image or a typed error, and where both paths decode the pixels agree")
    func mutations() throws {
        let sources = [
            try Self.progressive(),
            try ProgressiveJPEGFixtures.cjpeg(["-quality", "70", "-progressive", "-restart", "2B", "-sample", "1x1"]),
        ]
        var random = SeededRandom(seed: 0xDC5)
        var agreed = 0, ownAgreed = 0
        for round in 0..<300 {
            var bytes = [UInt8](sources[round % sources.count])
            random.mutate(&bytes, maxEdits: 4)
            let data = Data(bytes)
            Self.imageOrTypedError(data, "round \(round)")
            if let reduced = JPEGReducedScanTests.reduced(data), let reference = ProgressiveJPEGFixtures.turboJPEGEighth(data) {
                #expect(reduced == reference, "round \(round)")
                agreed += 1
            }
            // Our decoder directly: where it gives pixels and TurboJPEG decodes without a warning,
            // they are the same.
            let own = ProgressiveJPEGFixtures.ownEighth(data)
            if own.code == 0, let reference = ProgressiveJPEGFixtures.turboJPEGEighth(data) {
                #expect(own.pixels == reference, "round \(round): our decoder")
                ownAgreed += 1
            }
        }
        #expect(agreed > 0)
        #expect(ownAgreed > 0)
    }

    /// A hand-made 40×24 4:2:0 progressive JPEG: one interleaved DC scan whose blocks all code
    /// difference `dcSymbol` bits (category `dcCategory`), then one AC scan per component that is a
    /// single end-of-band run of `eobRunBits` (the run 2^14 + that, covering every block).
    /// `dcCounts` replaces the DC table's code-length counts (for broken tables); `quant` is every
    /// quantisation step (a 16-bit table above 255).
    static func handmade(dcCounts: [UInt8]? = nil, dcSymbols: [UInt8] = [0, 3], eobRunBits: UInt32 = 0x3FFF, quant: UInt16 = 2) -> Data {
        var b: [UInt8] = [0xFF, 0xD8]
        if quant > 255 {
            b += [0xFF, 0xDB, 0x00, 0x83, 0x10] + (0..<64).flatMap { _ in [UInt8(quant >> 8), UInt8(quant & 0xFF)] }
        } else {
            b += [0xFF, 0xDB, 0x00, 0x43, 0x00] + Array(repeating: UInt8(quant), count: 64)
        }
        b += [0xFF, 0xC2, 0x00, 17, 8, 0, 24, 0, 40, 3, 1, 0x22, 0, 2, 0x11, 0, 3, 0x11, 0]
        // DC: symbols coded "0", "10"; AC: the one symbol EOB14 (0xE0) coded "0".
        let counts = dcCounts ?? ([0, UInt8(dcSymbols.count - 1), 1] + Array(repeating: 0, count: 14)).dropFirst().map { $0 }
        let dhtLength = 2 + 1 + 16 + dcSymbols.count
        b += [0xFF, 0xC4, UInt8(dhtLength >> 8), UInt8(dhtLength & 0xFF), 0x00] + counts + dcSymbols
        b += [0xFF, 0xC4, 0x00, 0x14, 0x10, 1] + Array(repeating: 0, count: 15) + [0xE0]
        var bits: [Bool] = []
        func put(_ value: UInt32, _ count: Int) {
            for i in stride(from: count - 1, through: 0, by: -1) { bits.append(value >> UInt32(i) & 1 == 1) }
        }
        func flush() -> [UInt8] {
            while bits.count % 8 != 0 { bits.append(true) }
            var out: [UInt8] = []
            for i in stride(from: 0, to: bits.count, by: 8) {
                var byte: UInt8 = 0
                for j in 0..<8 where bits[i + j] { byte |= 0x80 >> UInt8(j) }
                out.append(byte)
                if byte == 0xFF { out.append(0x00) }
            }
            bits = []
            return out
        }
        b += [0xFF, 0xDA, 0x00, 12, 3, 1, 0x00, 2, 0x00, 3, 0x00, 0, 0, 0x00]
        // 6 MCUs of 4 + 1 + 1 blocks; luma alternates +3 / -3, chroma differences 0.
        for _ in 0..<6 {
            for block in 0..<6 {
                if block < 4 {
                    put(0b10, 2)
                    put(block % 2 == 0 ? 0b111 : 0b000, 3)
                } else {
                    put(0, 1)
                }
            }
        }
        b += flush()
        for component: UInt8 in 1...3 {
            b += [0xFF, 0xDA, 0x00, 8, 1, component, 0x00, 1, 63, 0x00]
            put(0, 1)
            put(eobRunBits, 14)
            b += flush()
        }
        b += [0xFF, 0xD9]
        return Data(b)
    }

    @Test("Given end-of-band runs longer than the scan, then our decoder's pixels are TurboJPEG's")
    func hugeEOBRuns() throws {
        for runBits: UInt32 in [0x3FFF, 0, 0x1234] {
            let data = Self.handmade(eobRunBits: runBits)
            let reference = try #require(ProgressiveJPEGFixtures.turboJPEGEighth(data), "TurboJPEG decodes it")
            let own = ProgressiveJPEGFixtures.ownEighth(data)
            #expect(own.code == 0)
            #expect(own.pixels == reference)
            // A luma block average alternates with the +3/-3 differences.
            #expect(own.pixels[0] != own.pixels[4])
        }
    }

    @Test("Given broken Huffman tables, then our decoder declines and the decode ends with an image or a typed error")
    func badHuffmanTables() throws {
        let broken: [(String, Data)] = [
            // Two codes of length 1: "1" is all ones.
            ("all-ones code", Self.handmade(dcCounts: [2] + Array(repeating: 0, count: 15), dcSymbols: [0, 3])),
            // 255 codes of length 1: the codes run past what one bit holds, and past the lookup
            // table they index (found by the jpeg-eighth fuzz target under AddressSanitizer).
            ("255 one-bit codes", Self.handmade(dcCounts: [255] + Array(repeating: 0, count: 15), dcSymbols: [0, 3] + Array(repeating: 0, count: 253))),
            ("3 one-bit codes", Self.handmade(dcCounts: [3] + Array(repeating: 0, count: 15), dcSymbols: [0, 3, 0])),
            // A DC category above 15.
            ("DC symbol 16", Self.handmade(dcSymbols: [0, 16])),
            // More codes than symbols in the segment.
            ("counts past the segment", Self.handmade(dcCounts: [1, 1, 9] + Array(repeating: 0, count: 13), dcSymbols: [0, 3])),
        ]
        for (name, data) in broken {
            #expect(ProgressiveJPEGFixtures.ownEighth(data).code != 0, "\(name)")
            Self.imageOrTypedError(data, name)
        }
        // The unbroken file is decoded by our decoder.
        #expect(ProgressiveJPEGFixtures.ownEighth(Self.handmade()).code == 0)
    }
}
