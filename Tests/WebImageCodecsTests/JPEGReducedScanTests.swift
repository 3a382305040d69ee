import CTurboJPEG
import Foundation
import Testing
import WebImageCore
import WebImageTesting

@testable import WebImageCodecs

@Suite("JPEG reduced-scan decode")
struct JPEGReducedScanTests {
    static let options: DecodeOptions = {
        var options = DecodeOptions()
        options.applyOrientation = false
        options.colorManagement = .ignore
        return options
    }()

    /// The reduced-scan decode of `data` at 1/8, or `nil` when it does not apply.
    static func reduced(_ data: Data) -> [UInt8]? {
        data.withUnsafeBytes { b -> [UInt8]? in
            var scanner = JPEGMarkerScanner()
            scanner.scan(b, stopAtFirstScan: true)
            guard let frame = scanner.frame else { return nil }
            let width = (frame.width + 7) / 8, height = (frame.height + 7) / 8
            var out = [UInt8](repeating: 0, count: width * height * 4)
            let applied = out.withUnsafeMutableBufferPointer { o in
                JPEGReducedScanDecode.decode(
                    b, into: o, size: PixelSize(width: width, height: height), cmyk: false)
            }
            return applied ? out : nil
        }
    }

    @Test("Given progressive files from libjpeg-turbo's and mozjpeg-style scan scripts, when decoded at 1/8 from the DC scans, then the pixels are TurboJPEG's full 1/8 decode")
    func generatedCorpusIdentical() throws {
        let files = try ProgressiveJPEGFixtures.generated()
        #expect(files.count >= 20)
        for (name, data) in files {
            let reference = try #require(ProgressiveJPEGFixtures.turboJPEGEighth(data), "\(name): TurboJPEG reference")
            // Our own decoder decodes every one of them itself.
            let own = ProgressiveJPEGFixtures.ownEighth(data)
            #expect(own.code == 0, "\(name): our decoder declined (\(own.code))")
            #expect(own.pixels == reference, "\(name): our decoder's pixels")
            let reduced = Self.reduced(data)
            #expect(reduced != nil, "\(name): the reduced-scan decode applies")
            #expect(reduced == reference, "\(name): identical pixels")
            // The public 1/8 decode takes the same path and gives the same pixels.
            let image = try JPEGCoder().decode(data, scaleDenominator: 8, options: Self.options)
            #expect(image.pixels.bytes == reference, "\(name): public 1/8 decode")
        }
    }

    @Test("Given odd sizes from 1×1 to 4033×5 in every sampling, grey, restart intervals and mozjpeg-style scripts, when our decoder decodes them at 1/8, then every pixel is TurboJPEG's", arguments: [
        (1, 1), (9, 17), (4033, 5), (5, 67), (16, 16), (23, 8), (130, 97),
    ])
    func ownDecoderOddSizes(width: Int, height: Int) throws {
        let input = ProgressiveJPEGFixtures.ppm(width: width, height: height)
        let files = try ProgressiveJPEGFixtures.oddSizeFiles(input, samplings: ["2x2", "2x1", "1x1", "1x2"])
        for (name, data) in files {
            let reference = try #require(ProgressiveJPEGFixtures.turboJPEGEighth(data), "\(width)×\(height) \(name)")
            let own = ProgressiveJPEGFixtures.ownEighth(data)
            #expect(own.code == 0, "\(width)×\(height) \(name): declined (\(own.code))")
            #expect(own.pixels == reference, "\(width)×\(height) \(name)")
        }
        // CMYK (TurboJPEG writes it as YCCK), decoded to CMYK as libjpeg does.
        for subsampling in [TJSAMP_444, TJSAMP_420] {
            let data = try ProgressiveJPEGFixtures.ycck(width: width, height: height, subsampling: subsampling)
            let reference = try #require(ProgressiveJPEGFixtures.turboJPEGEighth(data, format: TJPF_CMYK))
            let own = ProgressiveJPEGFixtures.ownEighth(data, cmyk: true)
            #expect(own.code == 0, "\(width)×\(height) YCCK \(subsampling): declined (\(own.code))")
            #expect(own.pixels == reference, "\(width)×\(height) YCCK \(subsampling)")
            #expect(ProgressiveJPEGFixtures.ownEighth(data, cmyk: false).code != 0, "CMYK is never written as RGBA")
        }
    }

    @Test("Given the reduced stream of a 4:2:0 file, then it keeps the chroma AC scans and drops every luma AC scan")
    func chromaKeptWhole() throws {
        let data = try ProgressiveJPEGFixtures.cjpeg(["-quality", "85", "-progressive", "-sample", "2x2"])
        try data.withUnsafeBytes { b in
            let script = try JPEGScanScript(b)
            #expect(JPEGReducedScanDecode.scaledSizes(script.components) == [1, 2, 2])
            let plan = try #require(JPEGReducedScanDecode.plan(script))
            for (index, scan) in script.scans.enumerated() {
                #expect(plan.keptScans[index] == (scan.isDC || scan.components != [0]))
            }
            #expect(plan.dcOnlyComponents == 1)
            let stream = JPEGReducedScanDecode.reducedStream(b, script: script, plan: plan)
            #expect(stream.count < b.count / 2)
        }
        let full444 = try ProgressiveJPEGFixtures.cjpeg(["-quality", "85", "-progressive", "-sample", "1x1"])
        try full444.withUnsafeBytes { b in
            let script = try JPEGScanScript(b)
            #expect(JPEGReducedScanDecode.scaledSizes(script.components) == [1, 1, 1])
            let plan = try #require(JPEGReducedScanDecode.plan(script))
            #expect(plan.keptScans == script.scans.map(\.isDC))
        }
    }

    @Test("Given the shared corpus's progressive JPEGs, when the reduced-scan decode applies, then the pixels are TurboJPEG's")
    func sharedCorpusIdentical() throws {
        guard let root = Corpus.root else { return }
        let files = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL }
            .filter { ["jpg", "jpeg"].contains($0.pathExtension.lowercased()) } ?? []
        var progressive = 0, applied = 0, ownDecoded = 0
        for url in files {
            let data = try Data(contentsOf: url)
            var scanner = JPEGMarkerScanner()
            data.withUnsafeBytes { scanner.scan($0, stopAtFirstScan: true) }
            guard scanner.frame?.marker == 0xC2 else { continue }
            progressive += 1
            // Our own decoder directly, where TurboJPEG decodes the file without a warning.
            if let reference = ProgressiveJPEGFixtures.turboJPEGEighth(data) {
                let own = ProgressiveJPEGFixtures.ownEighth(data)
                #expect(own.code == 0, "\(url.lastPathComponent): our decoder declined (\(own.code))")
                #expect(own.pixels == reference, "\(url.lastPathComponent): our decoder's pixels")
                if own.code == 0 { ownDecoded += 1 }
            }
            guard let reduced = Self.reduced(data) else { continue }
            applied += 1
            #expect(reduced == ProgressiveJPEGFixtures.turboJPEGEighth(data), "\(url.lastPathComponent)")
        }
        #expect(progressive >= 5)
        #expect(applied >= 3, "the reduced decode applies to most of the corpus's progressive files")
        #expect(ownDecoded >= 5, "our decoder decodes the corpus's progressive files itself")
    }

    @Test("Given scripts whose whole-file decode smooths or whose DC is incomplete, then the reduced decode does not apply and the normal path decides")
    func incompleteScriptsFallBack() throws {
        let scripts = [
            // DC never refined to Al 0.
            "0,1,2: 0-0, 0, 1; 0: 1-63, 0, 0; 1: 1-63, 0, 0; 2: 1-63, 0, 0;",
            // Luma AC never refined to Al 0: the whole-file decode smooths.
            "0,1,2: 0-0, 0, 0; 0: 1-63, 0, 1; 1: 1-63, 0, 0; 2: 1-63, 0, 0;",
            // Luma coefficients 10-63 never coded.
            "0,1,2: 0-0, 0, 0; 0: 1-9, 0, 0; 1: 1-63, 0, 0; 2: 1-63, 0, 0;",
        ]
        for script in scripts {
            let data = try ProgressiveJPEGFixtures.cjpeg(["-quality", "85"], scans: script)
            #expect(Self.reduced(data) == nil, "\(script)")
            let reference = ProgressiveJPEGFixtures.turboJPEGEighth(data)
            let image = try JPEGCoder().decode(data, scaleDenominator: 8, options: Self.options)
            #expect(image.pixels.bytes == reference)
        }
        // Arithmetic-coded progressive (SOF10) is not walked.
        let arithmetic = try ProgressiveJPEGFixtures.cjpeg(["-quality", "85", "-progressive", "-arithmetic"])
        #expect(Self.reduced(arithmetic) == nil)
        #expect(try JPEGCoder().decode(arithmetic, scaleDenominator: 8, options: Self.options).pixels.bytes
            == ProgressiveJPEGFixtures.turboJPEGEighth(arithmetic))
    }

    @Test("Given a progressive download shown at 1/8, then once the scans it reads have arrived the partial image is the final one, and later scans show nothing new")
    func progressivePreview() throws {
        let data = try ProgressiveJPEGFixtures.cjpeg(["-quality", "85", "-progressive", "-sample", "1x1"])
        var options = DecodeOptions()
        options.thumbnailPixelSize = PixelSize(width: 32, height: 24)
        let final = try JPEGCoder().decode(data, options: options)
        let script = try JPEGReducedScanHostileTests.script(data)
        // The last DC refinement completes what a 4:4:4 file's 1/8 decode reads.
        let lastDC = try #require(script.scans.lastIndex { $0.isDC })
        #expect(lastDC < script.scans.count - 1)
        let decoder = JPEGCoder().makeIncrementalDecoder(options: options)
        for index in script.scans.indices {
            // Into the next scan's data: this scan and the tables after it have fully arrived.
            let isLast = index + 1 == script.scans.count
            let end = isLast ? data.count : script.scans[index + 1].range.lowerBound + 20
            let partial = try decoder.update(data.prefix(end), isComplete: false)
            if index < lastDC {
                #expect(partial != nil, "scan \(index) shows a refinement")
            } else if index == lastDC {
                #expect(partial?.pixels.bytes == final.pixels.bytes, "the final thumbnail once the DC is complete")
            } else {
                #expect(partial == nil, "scan \(index) changes nothing at 1/8")
            }
        }
        #expect(try decoder.update(data, isComplete: true)?.pixels.bytes == final.pixels.bytes)
    }
}
