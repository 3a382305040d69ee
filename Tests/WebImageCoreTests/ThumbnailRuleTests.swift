import Testing
import WebImageCore
import WebImageTesting

@Suite("Thumbnail finishing rule (C-4, T-2)")
struct ThumbnailRuleTests {
    /// A smooth RGBA gradient with a translucent band.
    static func gradient(_ w: Int, _ h: Int) -> PixelBuffer {
        PixelBuffer.make(width: w, height: h) { out in
            for y in 0..<h {
                for x in 0..<w {
                    let i = (y * w + x) * 4
                    out[i] = UInt8(x * 255 / max(1, w - 1))
                    out[i + 1] = UInt8(y * 255 / max(1, h - 1))
                    out[i + 2] = UInt8((x + y) * 255 / max(1, w + h - 2))
                    out[i + 3] = y < h / 4 ? 128 : 255
                }
            }
        }
    }

    @Test("Given a whole-number reduction, then the thumbnail is the exact box average")
    func wholeFactorIsBox() {
        let source = Self.gradient(400, 300)
        let exact = source.thumbnail(to: PixelSize(width: 100, height: 75))
        #expect(exact.bytes == source.downscaled(to: PixelSize(width: 100, height: 75)).bytes)
    }

    @Test("Given a fractional reduction, then the result has the target size and stays close to a direct Lanczos3 resize")
    func fractionalIsLanczos() throws {
        let source = Self.gradient(1000, 700)
        let target = PixelSize(width: 137, height: 96)
        let thumb = source.thumbnail(to: target)
        #expect(thumb.width == 137 && thumb.height == 96)
        let direct = source.resized(to: target, filter: .lanczos3)
        let difference = try #require(PixelDifference.between(thumb, direct))
        #expect(difference.psnr >= 40, "\(difference)")
    }

    @Test("Given the same size, then the buffer itself is returned")
    func identity() {
        let source = Self.gradient(10, 10)
        #expect(source.thumbnail(to: PixelSize(width: 10, height: 10)) === source)
    }
}
