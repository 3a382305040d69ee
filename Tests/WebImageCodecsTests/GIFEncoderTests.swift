import Foundation
import Testing
import WebImageCodecs
import WebImageCore
import WebImageTesting

@Suite("GIF encoding")
struct GIFEncoderTests {
    let coder = GIFCoder()

    /// A frame whose pixels come from `color(x, y)`.
    static func buffer(width: Int, height: Int, _ color: (Int, Int) -> RGBA) -> PixelBuffer {
        PixelBuffer.make(width: width, height: height) { out in
            for y in 0..<height {
                for x in 0..<width {
                    let c = color(x, y)
                    let o = (y * width + x) * 4
                    out[o] = c.r; out[o + 1] = c.g; out[o + 2] = c.b; out[o + 3] = c.a
                }
            }
        }
    }

    @Test("Given the GIF format, then the coder encodes it and nothing else")
    func canEncode() {
        #expect(coder.canEncode(.gif))
        #expect(!coder.canEncode(.png))
    }

    @Test("Given an image with at most 256 colours, when encoded and decoded, then pixels are identical")
    func exactRoundTrip() throws {
        let pixels = Self.buffer(width: 37, height: 23) { x, y in
            let i = (x * 7 + y * 13) % 256
            return RGBA(r: UInt8(i), g: UInt8(255 - i), b: UInt8((i * 3) % 256))
        }
        let data = try coder.encode(Image(pixels: pixels, hasAlpha: false), format: .gif, options: .default)
        let decoded = try coder.decode(data, options: .default)
        #expect(decoded.pixels.bytes == pixels.bytes)
        #expect(decoded.hasAlpha == false)
    }

    @Test("Given an image with 255 colours and transparency, when round-tripped, then it is identical")
    func exactRoundTripWithTransparency() throws {
        let pixels = Self.buffer(width: 32, height: 32) { x, y in
            if (x + y) % 5 == 0 { return RGBA(r: 0, g: 0, b: 0, a: 0) }
            let i = (x * 32 + y) % 255
            return RGBA(r: UInt8(i), g: UInt8(i / 2), b: 200)
        }
        let data = try coder.encode(Image(pixels: pixels), format: .gif, options: .default)
        let decoded = try coder.decode(data, options: .default)
        #expect(PixelDifference.between(decoded.pixels, pixels)?.maxChannelDifference == 0)
        #expect(decoded.hasAlpha)
    }

    @Test("Given a photo-like gradient, when round-tripped, then PSNR is at least 30 dB")
    func gradientQuality() throws {
        let pixels = Self.buffer(width: 128, height: 96) { x, y in
            RGBA(r: UInt8(x * 2), g: UInt8(y * 255 / 95), b: UInt8((x + y) % 256))
        }
        let data = try coder.encode(Image(pixels: pixels, hasAlpha: false), format: .gif, options: .default)
        let decoded = try coder.decode(data, options: .default)
        let difference = try #require(PixelDifference.between(decoded.pixels, pixels))
        #expect(difference.psnr >= 30, "\(difference)")
    }

    @Test("Given an animation, when round-tripped, then frames, durations and loop count are kept",
          arguments: [0, 1, 3])
    func animationRoundTrip(loopCount: Int) throws {
        let colors = [RGBA(r: 255, g: 0, b: 0), RGBA(r: 0, g: 255, b: 0), RGBA(r: 0, g: 0, b: 255, a: 0)]
        let durations = [0.1, 0.25, 0.04]
        let frames = zip(colors, durations).map { color, duration in
            ImageFrame(pixels: Self.buffer(width: 20, height: 10) { x, _ in x < 10 ? color : RGBA(r: 9, g: 9, b: 9) },
                       duration: duration)
        }
        let image = Image(frames: frames, format: .gif, loopCount: loopCount)
        let data = try coder.encode(image, format: .gif, options: .default)
        let decoded = try coder.decode(data, options: .default)
        #expect(decoded.frames.count == 3)
        #expect(decoded.pixelSize == PixelSize(width: 20, height: 10))
        #expect(decoded.frames.map(\.duration) == durations)
        #expect(decoded.loopCount == loopCount)
        for (a, b) in zip(decoded.frames, frames) { #expect(PixelDifference.between(a.pixels, b.pixels)?.maxChannelDifference == 0) }

        let still = try coder.decode(coder.encode(image, format: .gif, options: EncodeOptions(keepAnimation: false)), options: .default)
        #expect(still.frames.count == 1)
    }

    @Test("Given a decoded corpus animation, when re-encoded, then frames, durations and loop count survive",
          .enabled(if: Corpus.isAvailable))
    func corpusRoundTrip() throws {
        let original = try coder.decode(Corpus.data("generated-valid/anim_6f_loop3_64x48.gif"), options: .default)
        let decoded = try coder.decode(coder.encode(original, format: .gif, options: .default), options: .default)
        #expect(decoded.frames.count == original.frames.count)
        #expect(decoded.frames.map(\.duration) == original.frames.map(\.duration))
        #expect(decoded.loopCount == 3)
        for (a, b) in zip(decoded.frames, original.frames) { #expect(PixelDifference.between(a.pixels, b.pixels)?.maxChannelDifference == 0) }
    }

    @Test("Given maxPixelSize, when encoded, then the result fits inside it with the aspect ratio kept")
    func maxPixelSize() throws {
        let pixels = Self.buffer(width: 200, height: 100) { x, _ in RGBA(r: UInt8(x), g: 0, b: 0) }
        let data = try coder.encode(Image(pixels: pixels), format: .gif,
                                    options: EncodeOptions(maxPixelSize: PixelSize(width: 50, height: 50)))
        let metadata = try coder.readMetadata(data)
        #expect(metadata.pixelSize == PixelSize(width: 50, height: 25))
    }

    @Test("Given maxFileSize, when encoded, then the result is no larger than the unconstrained encode")
    func maxFileSize() throws {
        let pixels = Self.buffer(width: 96, height: 96) { x, y in RGBA(r: UInt8(x * 2), g: UInt8(y * 2), b: UInt8((x * y) % 256)) }
        let image = Image(pixels: pixels)
        let full = try coder.encode(image, format: .gif, options: .default)
        let limited = try coder.encode(image, format: .gif, options: EncodeOptions(maxFileSize: full.count / 2))
        #expect(limited.count <= full.count / 2)
        #expect(try coder.decode(limited, options: .default).frames.count == 1)
    }

    @Test("Given another format, when encoding, then unsupportedFormat is thrown")
    func wrongFormat() {
        let image = Image(pixels: Self.buffer(width: 1, height: 1) { _, _ in RGBA(r: 1, g: 2, b: 3) })
        #expect(throws: WebImageError.self) { _ = try coder.encode(image, format: .png, options: .default) }
    }
}
