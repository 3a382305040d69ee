import Foundation
import Testing
import WebImageCodecs
import WebImageCore
import WebImageTesting

@Suite("JPEG encoding")
struct JPEGEncodeTests {
    let coder = JPEGCoder()

    @Test("Given a decoded photo, when encoded at quality 0.9 and decoded again, then PSNR is at least 30 dB", .enabled(if: Corpus.isAvailable))
    func roundTrip() throws {
        let original = try coder.decode(try Corpus.data("jpeg-misc/progressive/3.jpg"), options: .default)
        let data = try coder.encode(original, format: .jpeg, options: EncodeOptions(quality: 0.9))
        #expect(ImageFormat.detect(data) == .jpeg)
        let decoded = try coder.decode(data, options: .default)
        let difference = try #require(PixelDifference.between(original.pixels, decoded.pixels))
        #expect(difference.psnr >= 30, "\(difference)")
    }

    @Test("Given lower quality, when encoded, then the file is smaller")
    func qualityControlsSize() throws {
        let image = gradientImage(width: 200, height: 150)
        let low = try coder.encode(image, format: .jpeg, options: EncodeOptions(quality: 0.3))
        let high = try coder.encode(image, format: .jpeg, options: EncodeOptions(quality: 0.95))
        #expect(low.count < high.count)
        // Out-of-range and NaN qualities are clamped, never an error.
        _ = try coder.encode(image, format: .jpeg, options: EncodeOptions(quality: -3))
        _ = try coder.encode(image, format: .jpeg, options: EncodeOptions(quality: .nan))
        _ = try coder.encode(image, format: .jpeg, options: EncodeOptions(quality: 7))
    }

    @Test("Given an achievable maxFileSize, when encoded, then the result fits and decodes", .enabled(if: Corpus.isAvailable))
    func honoursMaxFileSize() throws {
        let image = try coder.decode(try Corpus.data("jpeg-misc/progressive/3.jpg"), options: .default)
        let unconstrained = try coder.encode(image, format: .jpeg, options: .default)
        let limit = 20_000
        #expect(unconstrained.count > limit)
        let data = try coder.encode(image, format: .jpeg, options: EncodeOptions(maxFileSize: limit))
        #expect(data.count <= limit)
        #expect(try coder.decode(data, options: .default).width > 0)
    }

    @Test("Given maxPixelSize, when encoded, then the image fits it with the aspect ratio kept")
    func honoursMaxPixelSize() throws {
        let data = try coder.encode(
            gradientImage(width: 650, height: 470), format: .jpeg,
            options: EncodeOptions(maxPixelSize: PixelSize(width: 100, height: 100)))
        #expect(try coder.readMetadata(data).pixelSize == PixelSize(width: 100, height: 72))
    }

    @Test("Given transparent pixels, when encoded, then alpha is ignored and the result is opaque")
    func dropsAlpha() throws {
        let image = solidImage(width: 16, height: 16, colour: RGBA(r: 10, g: 200, b: 30, a: 0))
        let decoded = try coder.decode(try coder.encode(image, format: .jpeg, options: .default), options: .default)
        #expect(decoded.pixels.isFullyOpaque())
        #expect(isClose(decoded.pixels.pixel(x: 8, y: 8), RGBA(r: 10, g: 200, b: 30), tolerance: 4))
    }

    @Test("Given an image with a non-up orientation, when encoded, then the pixels are written upright")
    func appliesOrientationWhenEncoding() throws {
        let stored = gradientImage(width: 40, height: 20)
        let image = Image(pixels: stored.pixels, orientation: .right, hasAlpha: false)
        let decoded = try coder.decode(try coder.encode(image, format: .jpeg, options: .default), options: .default)
        #expect(decoded.pixelSize == PixelSize(width: 20, height: 40))
    }

    @Test("Given formats, when asked, then only JPEG is encodable")
    func encodesOnlyJPEG() {
        #expect(coder.canEncode(.jpeg))
        #expect(!coder.canEncode(.png))
        #expect(throws: WebImageError.self) { try coder.encode(solidImage(width: 2, height: 2), format: .png, options: .default) }
    }
}

/// A smooth RGB gradient (compressible, but not trivially).
func gradientImage(width: Int, height: Int) -> Image {
    let pixels = PixelBuffer.make(width: width, height: height) { out in
        for y in 0..<height {
            for x in 0..<width {
                let i = (y * width + x) * 4
                out[i] = UInt8(x * 255 / max(1, width - 1))
                out[i + 1] = UInt8(y * 255 / max(1, height - 1))
                out[i + 2] = UInt8((x + y) % 256)
                out[i + 3] = 255
            }
        }
    }
    return Image(pixels: pixels, hasAlpha: false)
}
