import Foundation
import Testing
import WebImageCodecs
import WebImageCore
import WebImageTesting

@Suite("PNG metadata and decode options")
struct PNGMetadataTests {
    let coder = PNGCoder()

    @Test("Given an APNG, then metadata reports size, frames and loop count without decoding", .enabled(if: Corpus.isAvailable))
    func apngMetadata() throws {
        let metadata = try coder.readMetadata(try Corpus.data("sdwebimage/TestImageAnimated.apng"))
        #expect(metadata.format == .png)
        #expect(metadata.pixelSize == PixelSize(width: 320, height: 240))
        #expect(metadata.frameCount == 101)
        #expect(metadata.isAnimated)
        #expect(metadata.loopCount == 0)
        #expect(metadata.hasAlpha == true)
    }

    @Test("Given a PNG with an eXIf orientation, then metadata reports it and decode applies it", .enabled(if: Corpus.isAvailable))
    func exifOrientation() throws {
        let data = try Corpus.data("png-regressions/bugfixes/F-exif-chunk-early.png")
        #expect(try coder.readMetadata(data).orientation == .right)
        let stored = try coder.decode(data, options: DecodeOptions(applyOrientation: false))
        #expect(stored.orientation == .right)
        let upright = try coder.decode(data, options: .default)
        #expect(upright.orientation == .up)
        #expect(upright.pixels.bytes == stored.pixels.applying(.right).bytes)
    }

    @Test("Given a still PNG, then metadata says one frame, not animated, alpha from the colour type", .enabled(if: Corpus.isAvailable))
    func stillMetadata() throws {
        let metadata = try coder.readMetadata(try Corpus.data("pngsuite/basn2c08.png"))
        #expect(metadata.frameCount == 1 && !metadata.isAnimated && metadata.loopCount == nil)
        #expect(metadata.hasAlpha == false)
        #expect(throws: WebImageError.self) { try coder.readMetadata(Data([0x89, 0x50, 0x4E, 0x47])) }
    }

    @Test("Given a thumbnail size, when decoded, then every frame fits it", .enabled(if: Corpus.isAvailable))
    func thumbnail() throws {
        let options = DecodeOptions(thumbnailPixelSize: PixelSize(width: 50, height: 50))
        let still = try coder.decode(try Corpus.data("png-misc/bugfixes/debug_triangle_corners_widescreen.png"), options: options)
        #expect(still.pixelSize == PixelSize(width: 50, height: 25))
        let animated = try coder.decode(try Corpus.data("apng/ball.png"), options: options)
        #expect(animated.frames.count == 20)
        #expect(animated.frames.allSatisfy { $0.pixels.width == 50 && $0.pixels.height == 50 })
        let source = try coder.makeAnimatedSource(try Corpus.data("apng/ball.png"), options: options)
        #expect(source.canvasSize == PixelSize(width: 50, height: 50))
        #expect(try source.frame(at: 3).width == 50)
    }

    @Test("Given a scale factor, then the image carries it")
    func scaleFactor() throws {
        let data = try coder.encode(Image(pixels: PNGEncodeTests.pattern(width: 4, height: 4, seed: 0, alpha: false)), format: .png, options: .default)
        #expect(try coder.decode(data, options: DecodeOptions(scaleFactor: 2)).scale == 2)
    }

    @Test("Then the built-in coders include the PNG coder")
    func registered() {
        #expect(BuiltInCoders.all.contains { $0 is PNGCoder })
    }
}
