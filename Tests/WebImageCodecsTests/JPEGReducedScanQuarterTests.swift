import CJPEGReduced
import CTurboJPEG
import Foundation
import Testing
import WebImageCore
import WebImageTesting

@testable import WebImageCodecs

/// Our own decoder at 1/4 (luma by the 2×2 reduced IDCT, 4:2:0 chroma by the 4×4 one), against
/// TurboJPEG's 1/4 decode of the whole file.
extension JPEGReducedScanTests {
    /// The reduced-scan decode of `data` at 1/4 through the routing the normal path uses, or
    /// `nil` when it does not apply.
    static func quarter(_ data: Data) -> [UInt8]? {
        data.withUnsafeBytes { b -> [UInt8]? in
            var scanner = JPEGMarkerScanner()
            scanner.scan(b, stopAtFirstScan: true)
            guard let frame = scanner.frame else { return nil }
            let full = PixelSize(width: frame.width, height: frame.height)
            let size = JPEGCoder.reducedSize(of: full, scaleDenominator: 4)
            guard JPEGReducedScanDecode.ownScale(of: full, decodedAt: size) == 4 else { return nil }
            var out = [UInt8](repeating: 0, count: size.pixelCount * 4)
            let applied = out.withUnsafeMutableBufferPointer { o in
                JPEGReducedScanDecode.decode(b, into: o, size: size, scaleDenominator: 4, cmyk: false)
            }
            return applied ? out : nil
        }
    }

    /// Whether cjpeg's `-sample` setting needs no upsampling at 1/4 (grey, 4:4:4, 4:2:0).
    static func quarterSupports(_ name: String) -> Bool {
        !["2x1", "1x2", "4x1"].contains { name.contains($0) }
    }

    @Test("Given progressive files from libjpeg-turbo's and mozjpeg-style scan scripts, when decoded at 1/4, then our decoder decodes grey, 4:4:4 and 4:2:0 itself with TurboJPEG's pixels and declines the samplings libjpeg upsamples")
    func generatedCorpusQuarter() throws {
        let files = try ProgressiveJPEGFixtures.generated()
        var decoded = 0
        for (name, data) in files {
            let reference = try #require(ProgressiveJPEGFixtures.turboJPEG(data, denominator: 4), "\(name): TurboJPEG reference")
            let own = ProgressiveJPEGFixtures.own(data, denominator: 4)
            if Self.quarterSupports(name) {
                #expect(own.code == Int(WI_JPEG_REDUCED_OK), "\(name): our decoder declined (\(own.code))")
                #expect(own.pixels == reference, "\(name): our decoder's pixels")
                #expect(Self.quarter(data) == reference, "\(name): the routed 1/4 decode applies and matches")
                if own.code == Int(WI_JPEG_REDUCED_OK) { decoded += 1 }
            } else {
                #expect(own.code == Int(WI_JPEG_REDUCED_UNSUPPORTED), "\(name): libjpeg upsamples this sampling at 1/4")
                #expect(Self.quarter(data) == nil, "\(name)")
            }
            // The public 1/4 decode gives TurboJPEG's pixels either way.
            let image = try JPEGCoder().decode(data, scaleDenominator: 4, options: Self.options)
            #expect(image.pixels.bytes == reference, "\(name): public 1/4 decode")
        }
        #expect(decoded >= 16)
    }

    @Test("Given odd sizes from 9×17 to 4033×5, grey, RGB, restart intervals, mozjpeg-style scripts and CMYK, when our decoder decodes them at 1/4, then every pixel is TurboJPEG's", arguments: [
        (9, 17), (4033, 5), (5, 67), (16, 16), (23, 8), (130, 97),
    ])
    func ownDecoderQuarterOddSizes(width: Int, height: Int) throws {
        let input = ProgressiveJPEGFixtures.ppm(width: width, height: height)
        var files = try ProgressiveJPEGFixtures.oddSizeFiles(input, samplings: ["2x2", "1x1"])
        files.append(("q100", try ProgressiveJPEGFixtures.cjpeg(["-quality", "100", "-progressive"], input: input)))
        for (name, data) in files {
            let reference = try #require(ProgressiveJPEGFixtures.turboJPEG(data, denominator: 4), "\(width)×\(height) \(name)")
            let own = ProgressiveJPEGFixtures.own(data, denominator: 4)
            #expect(own.code == 0, "\(width)×\(height) \(name): declined (\(own.code))")
            #expect(own.pixels == reference, "\(width)×\(height) \(name)")
        }
        for subsampling in [TJSAMP_444, TJSAMP_420] {
            let data = try ProgressiveJPEGFixtures.ycck(width: width, height: height, subsampling: subsampling)
            let reference = try #require(ProgressiveJPEGFixtures.turboJPEG(data, denominator: 4, format: TJPF_CMYK))
            let own = ProgressiveJPEGFixtures.own(data, denominator: 4, cmyk: true)
            #expect(own.code == 0, "\(width)×\(height) YCCK \(subsampling): declined (\(own.code))")
            #expect(own.pixels == reference, "\(width)×\(height) YCCK \(subsampling)")
        }
    }

    @Test("Given frames of 2 to 5 pixels, whose 1/8 or 1/4 size TurboJPEG decodes at a larger scale, then the public reduced decode gives TurboJPEG's pixels")
    func tinyFramesFollowTurboJPEGsScale() throws {
        for side in 2...5 {
            let data = try ProgressiveJPEGFixtures.cjpeg(
                ["-quality", "90", "-progressive", "-sample", "1x1"], input: ProgressiveJPEGFixtures.ppm(width: side, height: side))
            for denominator in [8, 4] {
                let reference = try #require(ProgressiveJPEGFixtures.turboJPEG(data, denominator: denominator))
                let image = try JPEGCoder().decode(data, scaleDenominator: denominator, options: Self.options)
                #expect(image.pixels.bytes == reference, "\(side)×\(side) at 1/\(denominator)")
            }
        }
        // The routing takes the scale TurboJPEG picks: a 4×4 frame asked for 1×1 is decoded at
        // 1/4, a 2×2 one at 1/2 (not ours).
        #expect(JPEGReducedScanDecode.ownScale(of: PixelSize(width: 4, height: 4), decodedAt: PixelSize(width: 1, height: 1)) == 4)
        #expect(JPEGReducedScanDecode.ownScale(of: PixelSize(width: 2, height: 2), decodedAt: PixelSize(width: 1, height: 1)) == nil)
        #expect(JPEGReducedScanDecode.ownScale(of: PixelSize(width: 9, height: 17), decodedAt: PixelSize(width: 2, height: 3)) == 8)
        #expect(JPEGReducedScanDecode.ownScale(of: PixelSize(width: 9, height: 17), decodedAt: PixelSize(width: 3, height: 5)) == 4)
        #expect(JPEGReducedScanDecode.ownScale(of: PixelSize(width: 400, height: 300), decodedAt: PixelSize(width: 200, height: 150)) == nil)
    }

    @Test("Given the shared corpus's progressive JPEGs, when our decoder decodes them at 1/4, then the pixels are TurboJPEG's")
    func sharedCorpusQuarter() throws {
        guard let root = Corpus.root else { return }
        let files = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL }
            .filter { ["jpg", "jpeg"].contains($0.pathExtension.lowercased()) } ?? []
        var decoded = 0
        for url in files {
            let data = try Data(contentsOf: url)
            var scanner = JPEGMarkerScanner()
            data.withUnsafeBytes { scanner.scan($0, stopAtFirstScan: true) }
            guard scanner.frame?.marker == 0xC2, let reference = ProgressiveJPEGFixtures.turboJPEG(data, denominator: 4) else { continue }
            let own = ProgressiveJPEGFixtures.own(data, denominator: 4)
            if own.code == 0 {
                #expect(own.pixels == reference, "\(url.lastPathComponent)")
                decoded += 1
            }
        }
        #expect(decoded >= 3, "our decoder decodes the corpus's progressive files at 1/4 itself")
    }
}
