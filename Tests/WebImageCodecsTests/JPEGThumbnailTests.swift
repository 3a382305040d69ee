import Foundation
import Testing
import WebImageCodecs
import WebImageCore
import WebImageTesting

private let largeProgressive = "sdwebimage/TestImageLarge.jpg"  // 5250×3450, progressive

@Suite("JPEG thumbnails and metadata")
struct JPEGThumbnailTests {
    let coder = JPEGCoder()

    @Test("Given the large progressive JPEG and a 1/8 box, when decoded, then the thumbnail has that size", .enabled(if: Corpus.isAvailable))
    func eighthScaleThumbnail() throws {
        let options = DecodeOptions(thumbnailPixelSize: PixelSize(width: 657, height: 432))
        let image = try coder.decode(try Corpus.data(largeProgressive), options: options)
        #expect(image.pixelSize == PixelSize(width: 657, height: 432))
    }

    @Test("Given a non-power-of-two box, when decoded, then the size fits the box with the aspect ratio kept", .enabled(if: Corpus.isAvailable))
    func nonPowerOfTwoBox() throws {
        let options = DecodeOptions(thumbnailPixelSize: PixelSize(width: 500, height: 500))
        let image = try coder.decode(try Corpus.data(largeProgressive), options: options)
        #expect(image.pixelSize == PixelSize(width: 500, height: 329))
        #expect(abs(Double(image.width) / Double(image.height) - 5250.0 / 3450.0) < 0.01)
    }

    @Test("Given a thumbnail box, when decoded, then the pixels match a full decode shrunk to that size", .enabled(if: Corpus.isAvailable), arguments: [PixelSize(width: 163, height: 163), PixelSize(width: 300, height: 300), PixelSize(width: 81, height: 59)])
    func thumbnailMatchesShrunkFullDecode(box: PixelSize) throws {
        let data = try Corpus.data("jpeg-misc/progressive/3.jpg")  // 650×470
        let thumbnail = try coder.decode(data, options: DecodeOptions(thumbnailPixelSize: box))
        let expectedSize = ThumbnailSizing.fit(PixelSize(width: 650, height: 470), within: box, preserveAspectRatio: true)
        #expect(thumbnail.pixelSize == expectedSize)
        let full = try coder.decode(data, options: .default).pixels.downscaled(to: expectedSize)
        let difference = try #require(PixelDifference.between(thumbnail.pixels, full))
        // DCT scaling (a reduced IDCT) filters differently from a box filter and this photo is
        // sharp: measured 24.9–29.5 dB, mean 3.0–5.5 (Pillow's draft mode + box resize scores
        // 26.8–29.7 dB against its own full decode). A misplaced or mis-oriented thumbnail
        // scores far below (mean > 20).
        #expect(difference.psnr >= 23, "\(box): \(difference)")
        #expect(difference.meanDifference <= 7, "\(box): \(difference)")
    }

    /// An 800×600 photo-like JPEG (q95): smooth shading, detail at periods from 7 to 150
    /// pixels (some finer than a 10× smaller thumbnail can show, which it must filter out, not
    /// alias), and seeded grain. Every wave is separable (sin(a + b) = sin a cos b + cos a sin b),
    /// so the sines are tabulated per column and per row.
    static func photoLikeJPEG() throws -> Data {
        let width = 800, height = 600
        func table(_ count: Int, _ phase: (Double) -> Double) -> (sin: [Double], cos: [Double]) {
            let angles = (0..<count).map { phase(Double($0)) }
            return (angles.map { Foundation.sin($0) }, angles.map { Foundation.cos($0) })
        }
        let shadeX = table(width) { $0 / 150 }, shadeY = table(height) { $0 / 190 }
        let detailX = table(width) { $0 / 31 * 2 * .pi }, detailY = table(height) { $0 / 64 * 2 * .pi }
        let diagonalX = table(width) { $0 / 13 * 2 * .pi }, diagonalY = table(height) { $0 / 13 * 2 * .pi }
        let fineX = table(width) { $0 / 7 * 2 * .pi }, fineY = table(height) { $0 / 11 }
        var random = SeededRandom(seed: 17)
        let pixels = PixelBuffer.make(width: width, height: height) { out in
            for y in 0..<height {
                for x in 0..<width {
                    let shade = 110 + 50 * (shadeX.sin[x] * shadeY.cos[y] + shadeX.cos[x] * shadeY.sin[y])
                    let detail =
                        22 * detailX.sin[x] * detailY.sin[y]
                        + 14 * (diagonalX.sin[x] * diagonalY.cos[y] + diagonalX.cos[x] * diagonalY.sin[y])
                    let fine = 10 * (fineX.sin[x] * fineY.cos[y] + fineX.cos[x] * fineY.sin[y])
                    let grain = Double(Int(random.next() % 17) - 8)
                    let i = (y * width + x) * 4
                    out[i] = UInt8(clamping: Int(shade + detail + fine + grain))
                    out[i + 1] = UInt8(clamping: Int(shade * 0.8 + detail - fine + grain + 20))
                    out[i + 2] = UInt8(clamping: Int(shade * 0.6 - detail * 0.5 + grain + 40))
                    out[i + 3] = 255
                }
            }
        }
        var options = EncodeOptions()
        options.quality = 0.95
        return try JPEGCoder().encode(Image(pixels: pixels, format: .jpeg), format: .jpeg, options: options)
    }

    @Test("Given a photo-like JPEG shrunk 10×, when decoded as a thumbnail, then it is as faithful as libvips' to a full-resolution Lanczos3 resize (issue #13, item 17)")
    func thumbnailFidelity() throws {
        let data = try Self.photoLikeJPEG()
        let target = PixelSize(width: 80, height: 60)
        let thumbnail = try coder.decode(data, options: DecodeOptions(thumbnailPixelSize: target))
        #expect(thumbnail.pixelSize == target)
        let reference = try coder.decode(data, options: .default).pixels.resized(to: target, filter: .lanczos3)
        let difference = try #require(PixelDifference.between(thumbnail.pixels, reference))
        // Decoding at 1/8 (100×75, an 8×8 block average) and finishing with Lanczos3 scored
        // 44.9 dB here (max 6); decoding at ≥ 2× the target (1/4: 200×150), as libvips does,
        // 54.4 dB (max 2).
        #expect(difference.psnr >= 50, "\(difference)")
        #expect(difference.maxChannelDifference <= 4, "\(difference)")
    }

    @Test("Given a box larger than the image, when decoded, then the image is not enlarged", .enabled(if: Corpus.isAvailable))
    func neverEnlarges() throws {
        let image = try coder.decode(
            try Corpus.data("generated-valid/baseline_444_64x48.jpg"),
            options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 1000, height: 1000)))
        #expect(image.pixelSize == PixelSize(width: 64, height: 48))
    }

    @Test("Given preserveAspectRatio off, when decoded, then the image is the box size", .enabled(if: Corpus.isAvailable))
    func stretchesWithoutAspect() throws {
        let options = DecodeOptions(thumbnailPixelSize: PixelSize(width: 100, height: 100), preserveAspectRatio: false)
        let image = try coder.decode(try Corpus.data("jpeg-misc/progressive/3.jpg"), options: options)
        #expect(image.pixelSize == PixelSize(width: 100, height: 100))
    }

    @Test("Given only the first bytes of a large JPEG, when metadata is read, then size and format come from the header alone", .enabled(if: Corpus.isAvailable))
    func metadataFromHeaderOnly() throws {
        let header = try Corpus.data(largeProgressive).prefix(4096)
        let metadata = try coder.readMetadata(header)
        #expect(metadata.format == .jpeg)
        #expect(metadata.pixelSize == PixelSize(width: 5250, height: 3450))
        #expect(metadata.frameCount == 1)
        #expect(metadata.isAnimated == false)
        #expect(metadata.hasAlpha == false)
        #expect(metadata.orientation == .up)
    }
}
