import Foundation
import Testing
import WebImageCodecs
import WebImageCore
import WebImageTesting

@Suite("WebP decoding options and animation")
struct WebPDecodeTests {
    let coder = WebPCoder()

    @Test(
        "Given a still WebP and a thumbnail size, when decoded, then it has the fitted size and the same content",
        .enabled(if: Corpus.isAvailable),
        arguments: ["sdwebimage/TestImageStatic.webp", "webp-misc/lossless_images/simple.webp",
                    "webp-misc/extended_images/lossy_alpha.webp"])
    func scaledStillDecode(path: String) throws {
        let data = try Corpus.data(path)
        let full = try coder.decode(data, options: .default)
        // Half size: libwebp's rescaler and the box filter then average the same 2×2 blocks
        // (at other ratios their phases differ and hard alpha edges differ a lot).
        let box = PixelSize(width: full.width / 2, height: full.height / 2)
        let thumbnail = try coder.decode(data, options: DecodeOptions(thumbnailPixelSize: box))
        let expected = ThumbnailSizing.fit(full.pixelSize, within: box, preserveAspectRatio: true)
        #expect(thumbnail.pixelSize == expected)
        #expect(thumbnail.pixelSize == box)
        let fullRatio = Double(full.width) / Double(full.height)
        let thumbRatio = Double(thumbnail.width) / Double(thumbnail.height)
        #expect(abs(fullRatio - thumbRatio) / fullRatio < 0.03)
        // Same picture as shrinking the full decode (different filters, so not identical).
        let difference = try #require(PixelDifference.between(thumbnail.pixels, full.pixels.downscaled(to: expected)))
        // Measured: 37.2 dB (lossy with alpha) to 56.6 dB (lossless).
        #expect(difference.psnr > 30, "\(difference)")
    }

    @Test("Given a thumbnail size without aspect ratio, when decoded, then the image is exactly that size",
          .enabled(if: Corpus.isAvailable))
    func stretchedThumbnail() throws {
        let data = try Corpus.data("sdwebimage/TestImageStatic.webp")
        let options = DecodeOptions(thumbnailPixelSize: PixelSize(width: 50, height: 90), preserveAspectRatio: false)
        let image = try coder.decode(data, options: options)
        #expect(image.pixelSize == PixelSize(width: 50, height: 90))
    }

    @Test("Given a thumbnail larger than the image, when decoded, then the image keeps its full size",
          .enabled(if: Corpus.isAvailable))
    func thumbnailNeverEnlarges() throws {
        let data = try Corpus.data("webp-misc/lossy_images/simple-rgb.webp")
        let image = try coder.decode(data, options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 500, height: 500)))
        #expect(image.pixelSize == PixelSize(width: 100, height: 100))
    }

    @Test("Given an animated WebP, when decoded, then frames, durations and loop count come from the file",
          .enabled(if: Corpus.isAvailable))
    func animatedFramesAndDurations() throws {
        let data = try Corpus.data("sdwebimage/TestAnimatedImageMemory.webp")
        #expect(coder.isAnimated(data))
        let image = try coder.decode(data, options: .default)
        #expect(image.frames.count == 16)
        #expect(image.loopCount == 0)
        let expected = [333, 334, 333, 333, 334, 333, 333, 334, 333, 333, 334, 333, 333, 334, 333, 333]
        for (frame, milliseconds) in zip(image.frames, expected) {
            #expect(abs(frame.duration - Double(milliseconds) / 1000) < 1e-9)
        }
        let metadata = try coder.readMetadata(data)
        #expect(metadata.isAnimated && metadata.frameCount == 16 && metadata.loopCount == 0)
    }

    @Test("Given an animated WebP and firstFrameOnly, when decoded, then only the first composited frame is returned",
          .enabled(if: Corpus.isAvailable))
    func firstFrameOnly() throws {
        let data = try Corpus.data("webp-misc/extended_images/anim.webp")
        let all = try coder.decode(data, options: .default)
        let first = try coder.decode(data, options: DecodeOptions(firstFrameOnly: true))
        #expect(first.frames.count == 1)
        #expect(first.pixels.bytes == all.pixels.bytes)
    }

    @Test("Given an animated WebP and a thumbnail size, when decoded, then every frame has the fitted size",
          .enabled(if: Corpus.isAvailable))
    func animatedThumbnail() throws {
        let data = try Corpus.data("sdwebimage/TestImageAnimated.webp")
        let box = PixelSize(width: 99, height: 99)
        let image = try coder.decode(data, options: DecodeOptions(thumbnailPixelSize: box))
        #expect(image.frames.count == 8)
        let expected = ThumbnailSizing.fit(PixelSize(width: 990, height: 1050), within: box, preserveAspectRatio: true)
        #expect(image.frames.allSatisfy { $0.pixels.width == expected.width && $0.pixels.height == expected.height })
    }

    @Test(
        "Given an animated WebP, when read through the animated source in any order, then frames equal the full decode",
        .enabled(if: Corpus.isAvailable),
        arguments: ["webp-misc/extended_images/anim.webp", "webp-misc/extended_images/advertises_rgba_but_frames_are_rgb.webp",
                    "generated-valid/anim_6f_lossy_64x48.webp"])
    func animatedSourceMatchesFullDecode(path: String) throws {
        try expectAnimatedSourceMatchesDecode(coder, try Corpus.data(path))
    }

    @Test("Given a still WebP, then it is not animated and opens as a one-frame source", .enabled(if: Corpus.isAvailable))
    func stillIsNotAnimated() throws {
        let data = try Corpus.data("webp-misc/lossless_images/simple.webp")
        #expect(!coder.isAnimated(data))
        let source = try coder.makeAnimatedSource(data, options: .default)
        #expect(source.frameCount == 1)
        #expect(try source.frame(at: 0).bytes == coder.decode(data, options: .default).pixels.bytes)
        let metadata = try coder.readMetadata(data)
        #expect(metadata == ImageMetadata(format: .webp, pixelSize: PixelSize(width: 300, height: 300), hasAlpha: metadata.hasAlpha))
    }

    @Test("Given a pixel limit below the image size, when decoded, then imageTooLarge is thrown",
          .enabled(if: Corpus.isAvailable),
          arguments: ["webp-misc/lossless_images/simple.webp", "webp-misc/extended_images/anim.webp"])
    func pixelLimit(path: String) throws {
        var limits = DecodeLimits()
        limits.maxPixelCount = 10_000
        let data = try Corpus.data(path)
        #expect {
            try coder.decode(data, options: DecodeOptions(limits: limits))
        } throws: { error in
            if case WebImageError.imageTooLarge = error { return true }
            return false
        }
        let incremental = coder.makeIncrementalDecoder(options: DecodeOptions(limits: limits))
        #expect(try incremental.update(data.prefix(data.count / 2), isComplete: false) == nil)
        #expect(throws: WebImageError.self) { try incremental.update(data, isComplete: true) }
    }

    @Test("Given frame limits below the animation, when decoded, then imageTooLarge is thrown unless firstFrameOnly",
          .enabled(if: Corpus.isAvailable))
    func frameLimits() throws {
        let data = try Corpus.data("webp-misc/extended_images/anim.webp")
        var limits = DecodeLimits()
        limits.maxFrameCount = 5
        #expect {
            try coder.decode(data, options: DecodeOptions(limits: limits))
        } throws: { error in
            if case WebImageError.imageTooLarge = error { return true }
            return false
        }
        limits = DecodeLimits()
        limits.maxTotalAnimationPixels = 200 * 200 * 5
        #expect(throws: WebImageError.self) { try coder.decode(data, options: DecodeOptions(limits: limits)) }
        #expect(try coder.decode(data, options: DecodeOptions(firstFrameOnly: true, limits: limits)).frames.count == 1)
    }

    @Test("Given data that is not WebP, when decoded, then badImageData is thrown")
    func notWebP() {
        let coder = WebPCoder()
        for data in [Data(), Data("RIFF".utf8), Data("RIFF\u{0}\u{0}\u{0}\u{0}WEBPVP8 ".utf8), Data(repeating: 0xFF, count: 64)] {
            #expect(!coder.isAnimated(data))
            #expect {
                try coder.decode(data, options: .default)
            } throws: { error in
                if case WebImageError.badImageData = error { return true }
                return false
            }
            #expect(throws: WebImageError.self) { try coder.readMetadata(data) }
        }
    }

    @Test("Given the built-in coders, then WebP is registered and handles WebP data")
    func registered() {
        let riff = Data("RIFF\u{0}\u{0}\u{0}\u{0}WEBPVP8L".utf8)
        #expect(BuiltInCoders.all.contains { $0 is WebPCoder })
        #expect(WebPCoder().canDecode(riff))
        #expect(WebPCoder().canEncode(.webp) && !WebPCoder().canEncode(.png))
    }
}
