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
