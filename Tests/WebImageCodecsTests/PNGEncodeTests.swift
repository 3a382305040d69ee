import Foundation
import Testing
import WebImageCodecs
import WebImageCore
import WebImageTesting

@Suite("PNG encoding")
struct PNGEncodeTests {
    let coder = PNGCoder()

    /// A deterministic gradient; `alpha` varies the alpha channel, otherwise it is opaque.
    static func pattern(width: Int, height: Int, seed: Int, alpha: Bool) -> PixelBuffer {
        PixelBuffer.make(width: width, height: height) { out in
            for y in 0..<height {
                for x in 0..<width {
                    let i = (y * width + x) * 4
                    out[i] = UInt8(truncatingIfNeeded: x * 7 + seed)
                    out[i + 1] = UInt8(truncatingIfNeeded: y * 5 + seed * 3)
                    out[i + 2] = UInt8(truncatingIfNeeded: (x ^ y) + seed)
                    out[i + 3] = alpha ? UInt8(truncatingIfNeeded: x * 3 + y + 1) : 255
                }
            }
        }
    }

    @Test("Given an RGBA image, when encoded and decoded, then the pixels are identical")
    func rgbaRoundTrip() throws {
        let pixels = Self.pattern(width: 37, height: 23, seed: 1, alpha: true)
        let data = try coder.encode(Image(pixels: pixels, hasAlpha: true), format: .png, options: .default)
        #expect(ImageFormat.detect(data) == .png)
        let decoded = try coder.decode(data, options: .default)
        #expect(decoded.pixels.bytes == pixels.bytes)
        #expect(decoded.hasAlpha)
    }

    @Test("Given an opaque image, when encoded, then it is written as RGB and decodes identically")
    func opaqueRoundTrip() throws {
        let pixels = Self.pattern(width: 40, height: 30, seed: 2, alpha: false)
        let data = try coder.encode(Image(pixels: pixels, hasAlpha: true), format: .png, options: .default)
        #expect(data[data.startIndex + 25] == 2)  // IHDR colour type: truecolour, no alpha
        let decoded = try coder.decode(data, options: .default)
        #expect(decoded.pixels.bytes == pixels.bytes)
        #expect(!decoded.hasAlpha)
    }

    @Test("Given an image without alpha that has non-opaque pixels, when encoded, then alpha is dropped")
    func dropsAlphaWhenImageHasNone() throws {
        let pixels = Self.pattern(width: 8, height: 8, seed: 3, alpha: true)
        let data = try coder.encode(Image(pixels: pixels, hasAlpha: false), format: .png, options: .default)
        let decoded = try coder.decode(data, options: .default)
        #expect(decoded.pixels.isFullyOpaque())
        #expect(decoded.pixels.pixel(x: 3, y: 2).r == pixels.pixel(x: 3, y: 2).r)
    }

    @Test("Given an oriented image (still or animated), when encoded, then the file is upright", arguments: [1, 3])
    func orientationApplied(frameCount: Int) throws {
        let frames = (0..<frameCount).map { ImageFrame(pixels: Self.pattern(width: 7, height: 5, seed: $0, alpha: true), duration: 0.1) }
        let image = Image(frames: frames, orientation: .right, format: .png, hasAlpha: true)
        let decoded = try coder.decode(try coder.encode(image, format: .png, options: .default), options: .default)
        #expect(decoded.orientation == .up)
        #expect(decoded.frames.map(\.pixels.bytes) == frames.map { $0.pixels.applying(.right).bytes })
    }

    @Test("Given maxPixelSize, when encoded, then the result fits within it")
    func maxPixelSize() throws {
        let image = Image(pixels: Self.pattern(width: 200, height: 100, seed: 4, alpha: false))
        let data = try coder.encode(image, format: .png, options: EncodeOptions(maxPixelSize: PixelSize(width: 50, height: 50)))
        #expect(try coder.decode(data, options: .default).pixelSize == PixelSize(width: 50, height: 25))
    }

    @Test("Given maxFileSize smaller than the full encode, when encoded, then the image is shrunk to fit")
    func maxFileSize() throws {
        // Noise compresses poorly, so the file size follows the pixel count.
        var state: UInt32 = 12345
        let noise = PixelBuffer.make(width: 256, height: 256) { out in
            for i in out.indices {
                state = state &* 1_103_515_245 &+ 12345
                out[i] = UInt8(truncatingIfNeeded: state >> 16)
            }
        }
        let image = Image(pixels: noise)
        let full = try coder.encode(image, format: .png, options: .default)
        let data = try coder.encode(image, format: .png, options: EncodeOptions(maxFileSize: full.count / 3))
        #expect(data.count <= full.count / 3)
        #expect(try coder.decode(data, options: .default).width < 256)
    }

    @Test("Given an animated image, when encoded with keepAnimation, then an APNG keeps frames, durations and loop count")
    func apngRoundTrip() throws {
        let frames: [ImageFrame] = (0..<4).map { (index: Int) -> ImageFrame in
            let pixels = Self.pattern(width: 16, height: 12, seed: index * 40, alpha: index % 2 == 0)
            let duration = 0.05 * Double(index + 1)
            return ImageFrame(pixels: pixels, duration: duration)
        }
        let image = Image(frames: frames, format: .png, loopCount: 3, hasAlpha: true)
        let data = try coder.encode(image, format: .png, options: .default)
        #expect(coder.isAnimated(data))
        let decoded = try coder.decode(data, options: .default)
        #expect(decoded.frames.count == 4)
        #expect(decoded.loopCount == 3)
        for (a, b) in zip(decoded.frames, frames) {
            #expect(a.pixels.bytes == b.pixels.bytes)
            #expect(abs(a.duration - b.duration) < 1e-9)
        }
        let metadata = try coder.readMetadata(data)
        #expect(metadata.frameCount == 4 && metadata.isAnimated && metadata.loopCount == 3)
    }

    @Test("Given an animated image, when encoded without keepAnimation, then a still PNG of the first frame is written")
    func dropsAnimation() throws {
        let frames = (0..<3).map { ImageFrame(pixels: Self.pattern(width: 8, height: 8, seed: $0, alpha: false), duration: 0.1) }
        let data = try coder.encode(Image(frames: frames), format: .png, options: EncodeOptions(keepAnimation: false))
        let decoded = try coder.decode(data, options: .default)
        #expect(!coder.isAnimated(data))
        #expect(decoded.frames.count == 1)
        #expect(decoded.pixels.bytes == frames[0].pixels.bytes)
    }

    @Test("Given a non-PNG format, then the coder refuses to encode it")
    func refusesOtherFormats() {
        #expect(coder.canEncode(.png))
        #expect(!coder.canEncode(.jpeg))
        #expect(throws: WebImageError.self) {
            try coder.encode(Image(pixels: Self.pattern(width: 2, height: 2, seed: 0, alpha: false)), format: .jpeg, options: .default)
        }
    }

    @Test("Given the corpus's basn6a08, when re-encoded, then the round trip is exact", .enabled(if: Corpus.isAvailable))
    func corpusRoundTrip() throws {
        let original = try coder.decode(Corpus.data("pngsuite/basn6a08.png"), options: .default)
        let decoded = try coder.decode(coder.encode(original, format: .png, options: .default), options: .default)
        #expect(decoded.pixels.bytes == original.pixels.bytes)
    }
}
