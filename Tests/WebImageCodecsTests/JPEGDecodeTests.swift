import Foundation
import Testing
import WebImageCodecs
import WebImageCore
import WebImageTesting

/// Corpus JPEG inputs that must decode: manifest format JPEG, or a `.jpg`/`.jpeg` path.
private let decodableJPEGs: [CorpusEntry] = Corpus.entries { entry in
    // "decodes only with 12-bit support" (monkey12.jpg) is covered by the failure tests.
    entry.mustDecode && !entry.expected.hasPrefix("decodes only")
        && (entry.format == "JPEG" || (entry.format != "PNG" && isJPEGPath(entry.path)))
}

private func isJPEGPath(_ path: String) -> Bool {
    path.lowercased().hasSuffix(".jpg") || path.lowercased().hasSuffix(".jpeg")
}

@Suite("JPEG decoding")
struct JPEGDecodeTests {
    let coder = JPEGCoder()

    @Test("Given every corpus JPEG marked decodes, when decoded, then it has the listed size", .enabled(if: Corpus.isAvailable), arguments: decodableJPEGs)
    func decodesToListedSize(entry: CorpusEntry) throws {
        let data = try Corpus.data(entry.path)
        #expect(coder.canDecode(data))
        let image = try coder.decode(data, options: DecodeOptions(applyOrientation: false))
        #expect(image.width == entry.width && image.height == entry.height, "\(entry.path): \(image.pixelSize)")
        #expect(image.format == .jpeg)
        #expect(image.hasAlpha == false)
        #expect(image.pixels.isFullyOpaque())
    }

    @Test("Given a JPEG with a reference rendering, when decoded, then the pixels match it", .enabled(if: Corpus.isAvailable), arguments: decodableJPEGs.filter { !Corpus.referenceRenderings(for: $0.path).isEmpty })
    func matchesReferenceRendering(entry: CorpusEntry) throws {
        let reference = try ReferencePNG.read(corpusPath: try #require(Corpus.referenceRenderings(for: entry.path).first))
        let image = try coder.decode(try Corpus.data(entry.path), options: .default)
        let difference = try #require(PixelDifference.between(image.pixels, reference))
        // Measured against libjpeg-turbo 2.1.5: max 4, PSNR ≥ 55 dB (IDCT/upsampling rounding).
        #expect(difference.maxChannelDifference <= 8, "\(entry.path): \(difference)")
        #expect(difference.psnr >= 45, "\(entry.path): \(difference)")
    }

    /// `testorig.png` is a *grayscale* rendering of `testorig.jpg` (Rec. 709 luma, as
    /// ImageMagick makes it), so the decode is compared after the same conversion.
    @Test("Given libjpeg-turbo's testorig.jpg, when decoded and converted to luma, then it matches testorig.png", .enabled(if: Corpus.isAvailable))
    func matchesLibjpegTurboReference() throws {
        let image = try coder.decode(try Corpus.data("jpeg-libjpeg-turbo/testorig.jpg"), options: .default)
        let reference = try ReferencePNG.read(corpusPath: "jpeg-libjpeg-turbo/testorig.png")
        let luma = PixelBuffer.make(width: image.width, height: image.height) { out in
            let rgba = image.pixels.bytes
            for i in stride(from: 0, to: rgba.count, by: 4) {
                let y = 0.2126 * Double(rgba[i]) + 0.7152 * Double(rgba[i + 1]) + 0.0722 * Double(rgba[i + 2])
                let value = UInt8(min(255, max(0, y.rounded())))
                out[i] = value
                out[i + 1] = value
                out[i + 2] = value
                out[i + 3] = 255
            }
        }
        let difference = try #require(PixelDifference.between(luma, reference))
        // Measured: max 2, PSNR ≈ 55 dB.
        #expect(difference.maxChannelDifference <= 4, "\(difference)")
        #expect(difference.psnr >= 45, "\(difference)")
    }

    @Test("Given an Adobe CMYK JPEG, when decoded ignoring colour, then its colours are the RGB Pillow gives", .enabled(if: Corpus.isAvailable))
    func decodesInvertedCMYK() throws {
        // Pillow converts CMYK the naive way, as `.ignore` does (by default the untagged file is
        // read in the built-in CMYK profile: WebImageColorTests).
        var ignore = DecodeOptions()
        ignore.colorManagement = .ignore
        let image = try coder.decode(try Corpus.data("generated-valid/cmyk_64x48.jpg"), options: ignore)
        // Pillow 13: (0,0) red, (32,24) black, (63,47) yellow, (50,5) green, (5,40) blue.
        let expected: [(Int, Int, RGBA)] = [
            (0, 0, RGBA(r: 255, g: 0, b: 0)), (10, 10, RGBA(r: 255, g: 0, b: 0)),
            (32, 24, RGBA(r: 0, g: 0, b: 0)), (63, 47, RGBA(r: 255, g: 255, b: 0)),
            (50, 5, RGBA(r: 0, g: 255, b: 0)), (5, 40, RGBA(r: 0, g: 0, b: 255)),
        ]
        for (x, y, colour) in expected {
            let pixel = image.pixels.pixel(x: x, y: y)
            #expect(isClose(pixel, colour, tolerance: 6), "(\(x),\(y)) = \(pixel), Pillow \(colour)")
        }
    }

    @Test("Given a grayscale JPEG, when decoded, then it is RGBA with equal channels", .enabled(if: Corpus.isAvailable))
    func decodesGrayscaleToRGBA() throws {
        let image = try coder.decode(try Corpus.data("generated-valid/gray_64x48.jpg"), options: .default)
        #expect(image.pixelSize == PixelSize(width: 64, height: 48))
        let bytes = image.pixels.bytes
        for i in stride(from: 0, to: bytes.count, by: 4) where bytes[i] != bytes[i + 1] || bytes[i] != bytes[i + 2] {
            Issue.record("pixel \(i / 4) is not gray")
            break
        }
    }

    @Test("Given an arithmetic-coded JPEG, when decoded, then it equals the Huffman-coded original", .enabled(if: Corpus.isAvailable))
    func decodesArithmeticCoding() throws {
        let arithmetic = try coder.decode(try Corpus.data("jpeg-libjpeg-turbo/testimgari.jpg"), options: .default)
        let huffman = try coder.decode(try Corpus.data("jpeg-libjpeg-turbo/testimgint.jpg"), options: .default)
        let difference = try #require(PixelDifference.between(arithmetic.pixels, huffman.pixels))
        #expect(difference.psnr >= 40, "\(difference)")
    }

    @Test("Given one coder used from many tasks at once, when decoding, then every result is identical", .enabled(if: Corpus.isAvailable))
    func concurrentDecodesAgree() async throws {
        let data = try Corpus.data("jpeg-misc/progressive/cat.jpg")
        let reference = try coder.decode(data, options: .default).pixels.bytes
        let coder = self.coder
        let results = try await withThrowingTaskGroup(of: [UInt8].self) { group in
            for _ in 0..<8 {
                group.addTask { try coder.decode(data, options: .default).pixels.bytes }
            }
            return try await group.reduce(into: [[UInt8]]()) { $0.append($1) }
        }
        #expect(results.count == 8)
        #expect(results.allSatisfy { $0 == reference })
    }

    @Test("Given the built-in coders, then JPEG is registered and the shared manager decodes JPEG", .enabled(if: Corpus.isAvailable))
    func registeredAsBuiltIn() throws {
        #expect(BuiltInCoders.all.contains { $0 is JPEGCoder })
        let image = try CodersManager.shared.decode(try Corpus.data("generated-valid/1x1.jpg"), options: .default)
        #expect(image.pixelSize == PixelSize(width: 1, height: 1))
        #expect(CodersManager.shared.progressiveDecoder(for: try Corpus.data("generated-valid/1x1.jpg")) is JPEGCoder)
    }

    @Test("Given a scale factor, when decoded, then the image carries it")
    func carriesScaleFactor() throws {
        let data = try JPEGCoder().encode(solidImage(width: 8, height: 8), format: .jpeg, options: .default)
        #expect(try coder.decode(data, options: DecodeOptions(scaleFactor: 2)).scale == 2)
        #expect(try coder.decode(data, options: .default).scale == 1)
    }
}

func isClose(_ a: RGBA, _ b: RGBA, tolerance: Int) -> Bool {
    abs(Int(a.r) - Int(b.r)) <= tolerance && abs(Int(a.g) - Int(b.g)) <= tolerance
        && abs(Int(a.b) - Int(b.b)) <= tolerance && abs(Int(a.a) - Int(b.a)) <= tolerance
}

/// A `width × height` image of one colour.
func solidImage(width: Int, height: Int, colour: RGBA = RGBA(r: 200, g: 100, b: 50)) -> Image {
    let pixels = PixelBuffer.make(width: width, height: height) { out in
        for i in stride(from: 0, to: out.count, by: 4) {
            out[i] = colour.r
            out[i + 1] = colour.g
            out[i + 2] = colour.b
            out[i + 3] = colour.a
        }
    }
    return Image(pixels: pixels, hasAlpha: false)
}
