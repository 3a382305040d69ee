import CTIFF
import Foundation
import Testing
import WebImageCodecs
import WebImageCore
import WebImageTesting

/// Truncated and mutated TIFF, SVG and PDF files through every entry point: each call returns
/// or throws a `WebImageError` (a crash fails the whole run; the time limit catches a hang).
@Suite("TIFF, SVG and PDF mutations", .timeLimit(.minutes(5)))
struct TIFFSVGPDFMutationTests {
    static func tiffSeeds() throws -> [[UInt8]] {
        let w = 24
        let h = 16
        var rgb: [UInt8] = []
        var rgba: [UInt8] = []
        for i in 0..<w * h {
            let pixel: [UInt8] = [UInt8(i % 256), UInt8(i * 3 % 256), UInt8(i * 7 % 256)]
            rgb += pixel
            rgba += pixel + [UInt8(100 + i % 100)]
        }
        let bilevel = (0..<h).flatMap { y in (0..<w / 8).map { UInt8(truncatingIfNeeded: y * 37 + $0 * 11) } }
        var jpeg = TIFFTestPage(width: w, height: h, photometric: PHOTOMETRIC_YCBCR, compression: COMPRESSION_JPEG, rowsPerStrip: 16, samples: rgb)
        jpeg.jpegYCbCrFromRGB = true
        jpeg.jpegQuality = 80
        var second = TIFFTestPage(width: 8, height: 8, compression: COMPRESSION_PACKBITS, samples: Array(rgb.prefix(8 * 8 * 3)))
        second.orientation = 6
        let files: [[TIFFTestPage]] = [
            [TIFFTestPage(width: w, height: h, compression: COMPRESSION_LZW, samples: rgb)],
            [TIFFTestPage(width: w, height: h, compression: COMPRESSION_ADOBE_DEFLATE, tileSize: 16, samples: rgb)],
            [TIFFTestPage(width: w, height: h, samplesPerPixel: 4, compression: COMPRESSION_LZW, extraSample: EXTRASAMPLE_UNASSALPHA, samples: rgba)],
            [jpeg],
            [TIFFTestPage(width: w, height: h, bitsPerSample: 1, samplesPerPixel: 1, photometric: PHOTOMETRIC_MINISWHITE, compression: COMPRESSION_CCITTFAX4, samples: bilevel)],
            [TIFFTestPage(width: w, height: h, compression: COMPRESSION_LZW, samples: rgb), second],
        ]
        return try files.map { [UInt8](try TIFFTestWriter.write($0)) }
    }

    static let svgSeeds: [[UInt8]] = [
        Array(SVGDecodeTests.shapes.utf8),
        Array(##"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 30 20"><defs><linearGradient id="g"><stop offset="0" stop-color="#f00"/><stop offset="1" stop-color="#00f"/></linearGradient></defs><rect width="30" height="20" fill="url(#g)"/><text x="2" y="15" font-size="10">Hi</text></svg>"##.utf8),
    ]

    static let pdfSeeds: [[UInt8]] = [[UInt8](TestPDF.twoPages)]

    /// Every entry point the pipeline and the tool use.
    static func exercise(_ bytes: [UInt8]) {
        let data = Data(bytes)
        var thumbnail = DecodeOptions()
        thumbnail.thumbnailPixelSize = PixelSize(width: 17, height: 13)
        let calls: [(String, () throws -> Void)] = [
            ("metadata", { _ = try CodersManager.shared.readMetadata(data) }),
            ("decode", {
                let image = try CodersManager.shared.decode(data, options: .default)
                #expect(image.pixels.bytes.count == image.width * image.height * 4)
            }),
            ("thumbnail", { _ = try CodersManager.shared.decode(data, options: thumbnail) }),
            ("first frame", { _ = try CodersManager.shared.decode(data, options: DecodeOptions(firstFrameOnly: true)) }),
            ("animated", {
                guard let animated = CodersManager.shared.animatedDecoder(for: data), animated.isAnimated(data) else { return }
                let source = try animated.makeAnimatedSource(data, options: .default)
                for index in (0..<min(source.frameCount, 4)).reversed() { _ = try source.frame(at: index) }
            }),
        ]
        for (name, call) in calls {
            do { try call() } catch { #expect(error is WebImageError, "\(name): \(error)") }
        }
    }

    static func run(_ seeds: [[UInt8]], seed: UInt64, rounds: Int) {
        for bytes in seeds {
            for end in stride(from: 0, to: bytes.count, by: max(1, bytes.count / 40)) { exercise(Array(bytes[..<end])) }
        }
        var generator = SeededRandom(seed: seed)
        for round in 0..<rounds {
            var bytes = seeds[round % seeds.count]
            generator.mutate(&bytes)
            exercise(bytes)
        }
    }

    @Test("Given truncated and mutated TIFF files, then every entry point ends with an image or a typed error")
    func tiff() throws {
        let seeds = try Self.tiffSeeds()
        for seed in seeds { #expect(ImageFormat.detect(Data(seed)) == .tiff) }
        Self.run(seeds, seed: 0x71FF, rounds: 600)
    }

    @Test("Given truncated and mutated SVG documents, then every entry point ends with an image or a typed error")
    func svg() {
        Self.run(Self.svgSeeds, seed: 0x5F6, rounds: 300)
    }

    @Test("Given truncated and mutated PDF documents, then every entry point ends with an image or a typed error")
    func pdf() {
        Self.run(Self.pdfSeeds, seed: 0xBDF, rounds: 300)
    }
}
