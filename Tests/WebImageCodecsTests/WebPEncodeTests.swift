import Foundation
import Testing
import WebImageCodecs
import WebImageCore
import WebImageTesting

@Suite("WebP encoding")
struct WebPEncodeTests {
    let coder = WebPCoder()

    private func roundTrip(_ image: Image, _ options: EncodeOptions) throws -> (Data, Image) {
        let data = try coder.encode(image, format: .webp, options: options)
        #expect(ImageFormat.detect(data) == .webp)
        return (data, try coder.decode(data, options: .default))
    }

    @Test("Given translucent pixels, when encoded losslessly, then decoding gives the exact RGBA bytes back")
    func losslessRoundTripIsExact() throws {
        let pixels = WebPTestImages.translucent()
        let (_, decoded) = try roundTrip(Image(pixels: pixels), EncodeOptions(lossless: true))
        #expect(decoded.pixels.bytes == pixels.bytes)
        #expect(decoded.hasAlpha)
    }

    @Test("Given opaque pixels, when encoded losslessly, then decoding is exact and reports no alpha")
    func losslessOpaque() throws {
        let pixels = WebPTestImages.gradient()
        let (_, decoded) = try roundTrip(Image(pixels: pixels, hasAlpha: false), EncodeOptions(lossless: true))
        #expect(decoded.pixels.bytes == pixels.bytes)
        #expect(!decoded.hasAlpha)
    }

    @Test("Given an opaque image, when encoded lossy at 0.9, then the decoded image is close (PSNR ≥ 30 dB)")
    func lossyQuality() throws {
        let pixels = WebPTestImages.gradient()
        let (data, decoded) = try roundTrip(Image(pixels: pixels), EncodeOptions(quality: 0.9))
        let difference = try #require(PixelDifference.between(decoded.pixels, pixels))
        #expect(difference.psnr >= 30, "\(difference)")
        let (small, _) = try roundTrip(Image(pixels: pixels), EncodeOptions(quality: 0.1))
        #expect(small.count < data.count)
    }

    @Test("Given translucent pixels, when encoded lossy, then alpha survives closely")
    func lossyAlpha() throws {
        let pixels = WebPTestImages.translucent()
        let (_, decoded) = try roundTrip(Image(pixels: pixels), EncodeOptions(quality: 0.9))
        #expect(decoded.hasAlpha)
        var maxAlphaDifference = 0
        for i in stride(from: 3, to: pixels.bytes.count, by: 4) {
            maxAlphaDifference = max(maxAlphaDifference, abs(Int(pixels.bytes[i]) - Int(decoded.pixels.bytes[i])))
        }
        // Lossy WebP keeps alpha losslessly by default.
        #expect(maxAlphaDifference == 0)
    }

    private func animation(durations: [Double], loopCount: Int) -> Image {
        let frames = durations.enumerated().map { index, duration in
            ImageFrame(pixels: WebPTestImages.smooth(width: 32, height: 24, blue: UInt8(index * 60)), duration: duration)
        }
        return Image(frames: frames, loopCount: loopCount, hasAlpha: false)
    }

    @Test("Given an animation, when encoded losslessly and decoded, then frames, durations and loop count survive")
    func animatedRoundTrip() throws {
        let image = animation(durations: [0.1, 0.25, 0.05, 0.3], loopCount: 3)
        let (data, decoded) = try roundTrip(image, EncodeOptions(lossless: true))
        #expect(coder.isAnimated(data))
        #expect(decoded.frames.count == 4)
        #expect(decoded.loopCount == 3)
        #expect(decoded.frames.map(\.duration) == [0.1, 0.25, 0.05, 0.3])
        for (original, frame) in zip(image.frames, decoded.frames) {
            #expect(frame.pixels.bytes == original.pixels.bytes)
        }
        let metadata = try coder.readMetadata(data)
        #expect(metadata.frameCount == 4 && metadata.loopCount == 3)
    }

    @Test("Given an animation, when encoded lossy, then frames stay close and very short delays read back clamped")
    func animatedLossy() throws {
        let image = animation(durations: [0.005, 0.2, 0.2], loopCount: 0)
        let (_, decoded) = try roundTrip(image, EncodeOptions(quality: 0.9))
        #expect(decoded.frames.count == 3)
        #expect(decoded.loopCount == 0)
        #expect(decoded.frames.map(\.duration) == [FrameDelay.replacement, 0.2, 0.2])
        for (original, frame) in zip(image.frames, decoded.frames) {
            let difference = try #require(PixelDifference.between(frame.pixels, original.pixels))
            #expect(difference.psnr >= 30, "\(difference)")
        }
    }

    @Test("Given an animation and keepAnimation off, when encoded, then a still image of the first frame is written")
    func dropAnimation() throws {
        let image = animation(durations: [0.1, 0.1], loopCount: 0)
        let (data, decoded) = try roundTrip(image, EncodeOptions(lossless: true, keepAnimation: false))
        #expect(!coder.isAnimated(data))
        #expect(decoded.frames.count == 1)
        #expect(decoded.pixels.bytes == image.pixels.bytes)
    }

    @Test("Given maxPixelSize, when encoded, then the image is shrunk to fit with its aspect ratio")
    func maxPixelSize() throws {
        let image = Image(pixels: WebPTestImages.gradient(width: 96, height: 64))
        let (_, decoded) = try roundTrip(image, EncodeOptions(maxPixelSize: PixelSize(width: 48, height: 48)))
        #expect(decoded.pixelSize == PixelSize(width: 48, height: 32))
    }

    @Test("Given an oriented image, when encoded, then the pixels are written upright")
    func orientationApplied() throws {
        let pixels = WebPTestImages.translucent(width: 40, height: 30)
        let image = Image(pixels: pixels, orientation: .right)
        let (_, decoded) = try roundTrip(image, EncodeOptions(lossless: true))
        #expect(decoded.pixelSize == PixelSize(width: 30, height: 40))
        #expect(decoded.pixels.bytes == pixels.applying(.right).bytes)
    }

    @Test("Given an achievable maxFileSize, when encoded lossy, then the result fits and still decodes")
    func maxFileSizeHonoured() throws {
        let image = Image(pixels: WebPTestImages.translucent(width: 160, height: 120))
        let unconstrained = try coder.encode(image, format: .webp, options: EncodeOptions(quality: 0.9))
        let limit = unconstrained.count * 2 / 3
        let (data, decoded) = try roundTrip(image, EncodeOptions(quality: 0.9, maxFileSize: limit))
        #expect(data.count <= limit, "\(data.count) > \(limit) (unconstrained \(unconstrained.count))")
        #expect(decoded.pixelSize.width > 0)
    }

    @Test("Given a format other than WebP, when encoding, then unsupportedFormat is thrown")
    func otherFormat() {
        #expect {
            try coder.encode(Image(pixels: WebPTestImages.gradient()), format: .png, options: .default)
        } throws: { error in
            if case WebImageError.unsupportedFormat = error { return true }
            return false
        }
    }
}
