import Foundation
import Testing
import WebImageCodecs
import WebImageCore
import WebImageTesting

@Suite("AVIF encoding")
struct AVIFEncodeTests {
    let coder = AVIFCoder()

    /// A smooth gradient (lossy codecs are judged on content like photos, not noise).
    static func gradient(width: Int, height: Int, seed: Int = 0, alpha: Bool) -> PixelBuffer {
        PixelBuffer.make(width: width, height: height) { out in
            for y in 0..<height {
                for x in 0..<width {
                    let i = (y * width + x) * 4
                    out[i] = UInt8((x * 255 / max(1, width - 1) + seed * 40) & 255)
                    out[i + 1] = UInt8(y * 255 / max(1, height - 1))
                    out[i + 2] = UInt8(((x + y) * 255 / max(1, width + height - 2)) & 255)
                    out[i + 3] = alpha ? UInt8(64 + x * 191 / max(1, width - 1)) : 255
                }
            }
        }
    }

    private func roundTrip(_ image: Image, _ options: EncodeOptions) throws -> (Data, Image) {
        let data = try CodersManager.shared.encode(image, format: .avif, options: options)
        #expect(ImageFormat.detect(data) == .avif)
        return (data, try CodersManager.shared.decode(data, options: .default))
    }

    @Test("Given lossless encoding, then pixels come back exactly, with and without alpha", arguments: [false, true])
    func losslessIsExact(alpha: Bool) throws {
        let pixels = PNGEncodeTests.pattern(width: 33, height: 17, seed: 5, alpha: alpha)
        let (_, decoded) = try roundTrip(Image(pixels: pixels, format: .png, hasAlpha: alpha), EncodeOptions(lossless: true))
        #expect(decoded.pixels.bytes == pixels.bytes)
        #expect(decoded.hasAlpha == alpha)
    }

    @Test("Given lossy qualities, then the image stays close to the source and lower quality gives smaller files")
    func lossyQuality() throws {
        let pixels = Self.gradient(width: 96, height: 64, alpha: true)
        let image = Image(pixels: pixels, hasAlpha: true)
        let (high, decodedHigh) = try roundTrip(image, EncodeOptions(quality: 0.9))
        let (low, _) = try roundTrip(image, EncodeOptions(quality: 0.2))
        let difference = try #require(PixelDifference.between(decodedHigh.pixels, pixels))
        #expect(difference.psnr >= 30, "\(difference)")
        #expect(low.count < high.count)
    }

    @Test("Given an animation, then frames and durations survive lossless; keepAnimation off keeps the first frame")
    func animation() throws {
        let frames = (0..<3).map { ImageFrame(pixels: PNGEncodeTests.pattern(width: 20, height: 12, seed: $0 * 9, alpha: true), duration: [0.04, 0.25, 0.1][$0]) }
        let image = Image(frames: frames, format: .png, hasAlpha: true)
        let (_, decoded) = try roundTrip(image, EncodeOptions(lossless: true))
        #expect(decoded.frames.map(\.pixels.bytes) == frames.map(\.pixels.bytes))
        #expect(decoded.frames.map(\.duration) == [0.04, 0.25, 0.1])
        let (_, still) = try roundTrip(image, EncodeOptions(lossless: true, keepAnimation: false))
        #expect(still.frames.count == 1 && still.pixels.bytes == frames[0].pixels.bytes)
    }

    @Test("Given an oriented image and a size cap, then the file is upright and fits the cap")
    func orientationAndSizeCap() throws {
        let pixels = PNGEncodeTests.pattern(width: 40, height: 30, seed: 1, alpha: false)
        let (_, upright) = try roundTrip(Image(pixels: pixels, orientation: .right, hasAlpha: false), EncodeOptions(lossless: true))
        #expect(upright.orientation == .up && upright.pixels.bytes == pixels.applying(.right).bytes)
        let (_, capped) = try roundTrip(Image(pixels: pixels, hasAlpha: false), EncodeOptions(maxPixelSize: PixelSize(width: 20, height: 20)))
        #expect(capped.pixelSize == PixelSize(width: 20, height: 15))
    }

    @Test("Given an achievable maxFileSize, then the lossy file fits it and still decodes")
    func maxFileSize() throws {
        let image = Image(pixels: Self.gradient(width: 160, height: 120, seed: 2, alpha: false), hasAlpha: false)
        let unconstrained = try coder.encode(image, format: .avif, options: EncodeOptions(quality: 0.95))
        let limit = unconstrained.count * 2 / 3
        let fitted = try coder.encode(image, format: .avif, options: EncodeOptions(quality: 0.95, maxFileSize: limit))
        #expect(fitted.count <= limit)
        #expect(try coder.decode(fitted, options: .default).pixelSize == image.pixelSize)
    }

    @Test("Given frames with absurd durations (infinite, NaN, negative, huge), then encoding clamps them instead of trapping")
    func absurdDurations() throws {
        let durations = [Double.infinity, .nan, -5, 1e300]
        let frames = durations.map { ImageFrame(pixels: Self.gradient(width: 8, height: 8, alpha: false), duration: $0) }
        let decoded = try CodersManager.shared.decode(
            try coder.encode(Image(frames: frames, hasAlpha: false), format: .avif, options: EncodeOptions(lossless: true)), options: .default)
        #expect(decoded.frames.count == 4)
        #expect(decoded.frames.allSatisfy { $0.duration > 0 && $0.duration.isFinite })
    }

    @Test("Then the AVIF coder encodes AVIF only")
    func formats() {
        #expect(coder.canEncode(.avif) && !coder.canEncode(.webp))
        #expect(throws: WebImageError.self) { try coder.encode(Image(pixels: Self.gradient(width: 2, height: 2, alpha: false)), format: .png, options: .default) }
    }
}
