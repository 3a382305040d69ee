import Foundation
import Testing
import WebImageCodecs
import WebImageCore
import WebImageTesting

@Suite("WebP reduced decode")
struct WebPReducedDecodeTests {
    static let size = PixelSize(width: 203, height: 101)

    /// A 203×101 lossless WebP (no side a multiple of any shrink): red rises left to right,
    /// green top to bottom.
    static let webp: Data = {
        let pixels = PixelBuffer.make(width: size.width, height: size.height) { out in
            for y in 0..<size.height {
                for x in 0..<size.width {
                    let index = (y * size.width + x) * 4
                    out[index] = UInt8(x * 255 / 202)
                    out[index + 1] = UInt8(y * 255 / 100)
                    out[index + 2] = 60
                    out[index + 3] = 255
                }
            }
        }
        return try! WebPCoder().encode(Image(pixels: pixels, hasAlpha: false), format: .webp, options: EncodeOptions(lossless: true))
    }()

    @Test("Given a scale denominator, when decoded, then each side is the stored side divided by it, rounded up, and the pixels spread evenly over the stored ones", arguments: 1...8)
    func reducedSizes(denominator: Int) throws {
        let image = try WebPCoder().decode(Self.webp, scaleDenominator: denominator, options: DecodeOptions())
        let expected = WebPCoder.reducedSize(of: Self.size, scaleDenominator: denominator)
        #expect(image.pixelSize == expected)
        #expect(expected == PixelSize(width: (203 + denominator - 1) / denominator, height: (101 + denominator - 1) / denominator))
        // Reduced pixel i covers stored i·w/w′ ..< (i+1)·w/w′: its red is the ramp at the centre.
        for i in [0, image.width / 3, image.width - 1] {
            let centre = (Double(i) + 0.5) * 203 / Double(image.width) - 0.5
            let pixel = image.pixels.pixel(x: i, y: image.height / 2)
            #expect(abs(Double(pixel.r) - centre * 255 / 202) <= 3, "red at \(i): \(pixel.r), centre \(centre)")
        }
    }

    @Test("Given a thumbnail size too, when decoded reduced, then the denominator alone sets the size")
    func thumbnailSettingsIgnored() throws {
        let options = DecodeOptions(thumbnailPixelSize: PixelSize(width: 10, height: 10))
        let image = try WebPCoder().decode(Self.webp, scaleDenominator: 3, options: options)
        #expect(image.pixelSize == PixelSize(width: 68, height: 34))
    }

    @Test("Given a denominator outside 1…8, when decoded, then it is refused", arguments: [0, 9, 16, -2])
    func unsupportedDenominator(denominator: Int) {
        #expect(throws: WebImageError.self) {
            try WebPCoder().decode(Self.webp, scaleDenominator: denominator, options: DecodeOptions())
        }
    }

    @Test("Given limits, when decoded reduced, then the pixel limit applies to the stored size and the byte budget to the reduced one")
    func limits() throws {
        var options = DecodeOptions()
        options.limits.maxPixelCount = 203 * 101 - 1
        #expect(throws: WebImageError.self) {
            try WebPCoder().decode(Self.webp, scaleDenominator: 8, options: options)
        }
        // The reduced 1/4 decode (51×26) fits a budget the full size (203×101) does not.
        options = DecodeOptions()
        options.limits.maxDecodedBytes = 51 * 26 * 4
        #expect(throws: WebImageError.self) {
            try WebPCoder().decode(Self.webp, scaleDenominator: 1, options: options)
        }
        #expect(try WebPCoder().decode(Self.webp, scaleDenominator: 4, options: options).pixelSize == PixelSize(width: 51, height: 26))
        #expect(throws: WebImageError.self) {
            try WebPCoder().decode(Self.webp, scaleDenominator: 3, options: options)
        }
    }

    @Test("Given an animated WebP, when decoded reduced, then it is refused and isStill says so")
    func animationRefused() throws {
        let frames = (0..<2).map { index in
            ImageFrame(pixels: PixelBuffer.make(width: 16, height: 8) { out in
                for i in stride(from: 0, to: out.count, by: 4) { out[i] = UInt8(index * 100); out[i + 3] = 255 }
            }, duration: 0.1)
        }
        let animated = try WebPCoder().encode(
            Image(frames: frames, loopCount: 0, hasAlpha: false), format: .webp, options: EncodeOptions(keepAnimation: true))
        #expect(!WebPCoder().isStill(animated))
        #expect(WebPCoder().isStill(Self.webp))
        #expect(throws: WebImageError.self) {
            try WebPCoder().decode(animated, scaleDenominator: 2, options: DecodeOptions())
        }
    }
}
