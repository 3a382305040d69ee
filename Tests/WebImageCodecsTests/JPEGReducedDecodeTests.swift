import Foundation
import Testing
import WebImageCodecs
import WebImageCore
import WebImageTesting

@Suite("JPEG reduced decode")
struct JPEGReducedDecodeTests {
    /// A 203×101 JPEG (no side a multiple of 8): red rises left to right, green top to bottom.
    static let jpeg: Data = {
        let pixels = PixelBuffer.make(width: 203, height: 101) { out in
            for y in 0..<101 {
                for x in 0..<203 {
                    let index = (y * 203 + x) * 4
                    out[index] = UInt8(x * 255 / 202)
                    out[index + 1] = UInt8(y * 255 / 100)
                    out[index + 2] = 60
                    out[index + 3] = 255
                }
            }
        }
        return try! JPEGCoder().encode(Image(pixels: pixels, hasAlpha: false), format: .jpeg, options: EncodeOptions(quality: 0.95))
    }()

    @Test("Given a scale denominator, when decoded, then each side is the stored side divided by it, rounded up", arguments: [1, 2, 4, 8])
    func reducedSizes(denominator: Int) throws {
        let image = try JPEGCoder().decode(Self.jpeg, scaleDenominator: denominator, options: DecodeOptions())
        let expected = JPEGCoder.reducedSize(of: PixelSize(width: 203, height: 101), scaleDenominator: denominator)
        #expect(image.pixelSize == expected)
        #expect(expected == PixelSize(width: (203 + denominator - 1) / denominator, height: (101 + denominator - 1) / denominator))
        // Pixel (i, j) is the average of the full image's d×d block at (i·d, j·d).
        let full = try JPEGCoder().decode(Self.jpeg, options: DecodeOptions())
        for (i, j) in [(0, 0), (image.width / 2, image.height / 3), (203 / denominator - 1, 101 / denominator - 1)] {
            var red = 0, green = 0
            for y in j * denominator..<(j + 1) * denominator {
                for x in i * denominator..<(i + 1) * denominator {
                    red += Int(full.pixels.pixel(x: x, y: y).r)
                    green += Int(full.pixels.pixel(x: x, y: y).g)
                }
            }
            let count = denominator * denominator, pixel = image.pixels.pixel(x: i, y: j)
            #expect(abs(Int(pixel.r) - red / count) <= 4, "red at \(i), \(j)")
            #expect(abs(Int(pixel.g) - green / count) <= 4, "green at \(i), \(j)")
        }
    }

    @Test("Given a thumbnail size too, when decoded reduced, then the denominator alone sets the size")
    func thumbnailSettingsIgnored() throws {
        let options = DecodeOptions(thumbnailPixelSize: PixelSize(width: 10, height: 10))
        let image = try JPEGCoder().decode(Self.jpeg, scaleDenominator: 2, options: options)
        #expect(image.pixelSize == PixelSize(width: 102, height: 51))
    }

    @Test("Given a denominator libjpeg-turbo has no reduced transform for, when decoded, then it is refused", arguments: [0, 3, 16, -2])
    func unsupportedDenominator(denominator: Int) {
        #expect(throws: WebImageError.self) {
            try JPEGCoder().decode(Self.jpeg, scaleDenominator: denominator, options: DecodeOptions())
        }
    }

    @Test("Given a pixel budget the full size exceeds, when decoded reduced, then the image is still refused")
    func pixelLimitOnTheStoredSize() {
        var options = DecodeOptions()
        options.limits.maxPixelCount = 203 * 101 - 1
        #expect(throws: WebImageError.self) {
            try JPEGCoder().decode(Self.jpeg, scaleDenominator: 8, options: options)
        }
    }
}
