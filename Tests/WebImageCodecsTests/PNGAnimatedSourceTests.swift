import Foundation
import Testing
import WebImageCodecs
import WebImageCore
import WebImageTesting

@Suite("APNG animated source")
struct PNGAnimatedSourceTests {
    let coder = PNGCoder()

    @Test(
        "Given an APNG, when opened as a source, then count, durations, loop count and frames equal the full decode",
        .enabled(if: Corpus.isAvailable),
        arguments: ["apng/ball.png", "apng/wpt/fcTL-dispose-in-region-previous.png", "generated-valid/anim_6f_64x48.apng"])
    func sourceMatchesDecode(path: String) throws {
        try expectAnimatedSourceMatchesDecode(coder, try Corpus.data(path))
    }

    @Test("Given APNGs and still PNGs, then isAnimated is true only for several frames", .enabled(if: Corpus.isAvailable))
    func isAnimated() throws {
        #expect(coder.isAnimated(try Corpus.data("apng/ball.png")))
        #expect(coder.isAnimated(try Corpus.data("sdwebimage/TestImageAnimated.apng")))
        #expect(!coder.isAnimated(try Corpus.data("pngsuite/basn6a08.png")))
        #expect(!coder.isAnimated(Data("not a png".utf8)))
    }

    @Test("Given ball.png, then durations come from fcTL (75/1000 s) and it loops forever", .enabled(if: Corpus.isAvailable))
    func durationsAndLoop() throws {
        let image = try coder.decode(try Corpus.data("apng/ball.png"), options: .default)
        #expect(image.frames.allSatisfy { abs($0.duration - 0.075) < 1e-9 })
        #expect(image.loopCount == 0)
        let wpt = try coder.decode(try Corpus.data("apng/wpt/dispose-background-blend-source.png"), options: .default)
        // delay 1/10 s, and the file plays once.
        #expect(wpt.frames.allSatisfy { abs($0.duration - 0.1) < 1e-9 })
        #expect(wpt.loopCount == 1)
    }

    @Test("Given firstFrameOnly, when an APNG is decoded, then only its first frame is returned", .enabled(if: Corpus.isAvailable))
    func firstFrameOnly() throws {
        let data = try Corpus.data("apng/ball.png")
        let all = try coder.decode(data, options: .default)
        let first = try coder.decode(data, options: DecodeOptions(firstFrameOnly: true))
        #expect(first.frames.count == 1)
        #expect(first.pixels.bytes == all.pixels.bytes)
    }

    @Test("Given an APNG whose default image is hidden, then the animation starts with the first fcTL frame", .enabled(if: Corpus.isAvailable))
    func hiddenDefaultImage() throws {
        let path = "apng/wpt/fcTL-blend-source-transparent.png"
        let image = try coder.decode(try Corpus.data(path), options: .default)
        #expect(image.frames.count == 2)
        let metadata = try coder.readMetadata(try Corpus.data(path))
        #expect(metadata.frameCount == 2 && metadata.isAnimated)
    }

    @Test("Given an APNG whose frame rectangle leaves the canvas, then it is shown as its default image")
    func invalidAnimationFallsBackToDefaultImage() throws {
        // A 4x4 two-frame APNG written by the encoder, then the second fcTL's x offset patched.
        let frames = (0..<2).map { ImageFrame(pixels: PNGEncodeTests.pattern(width: 4, height: 4, seed: $0 * 9, alpha: true), duration: 0.1) }
        var bytes = [UInt8](try coder.encode(Image(frames: frames), format: .png, options: .default))
        let fctl = Array("fcTL".utf8)
        let second = try #require((0..<(bytes.count - 4)).filter { Array(bytes[$0..<($0 + 4)]) == fctl }.dropFirst().first)
        bytes[second + 4 + 4 + 8 + 3] = 1  // x_offset = 1: 1 + 4 > 4
        // Fix the chunk's CRC so that only the rectangle is wrong.
        let crc = CRC32.checksum(bytes[second..<(second + 4 + 26)])
        bytes.replaceSubrange((second + 30)..<(second + 34), with: [UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)])
        let decoded = try coder.decode(Data(bytes), options: .default)
        #expect(decoded.frames.count == 1)
        #expect(decoded.pixels.bytes == frames[0].pixels.bytes)
    }

    @Test("Given an APNG whose fdAT CRC is corrupt, then decoding the frame fails while metadata still reads")
    func corruptFrameData() throws {
        let frames = (0..<2).map { ImageFrame(pixels: PNGEncodeTests.pattern(width: 4, height: 4, seed: $0 * 5, alpha: true), duration: 0.1) }
        var bytes = [UInt8](try coder.encode(Image(frames: frames), format: .png, options: .default))
        let fdat = Array("fdAT".utf8)
        let at = try #require((0..<(bytes.count - 4)).first { Array(bytes[$0..<($0 + 4)]) == fdat })
        let length = bytes[(at - 4)..<at].reduce(0) { $0 << 8 | Int($1) }
        bytes[at + 4 + length] ^= 0xFF  // first CRC byte
        let data = Data(bytes)
        #expect(try coder.readMetadata(data).frameCount == 2)
        #expect(throws: WebImageError.self) { try coder.decode(data, options: .default) }
        let source = try coder.makeAnimatedSource(data, options: .default)
        #expect(try source.frame(at: 0).bytes == frames[0].pixels.bytes)
        #expect(throws: WebImageError.self) { try source.frame(at: 1) }
    }
}
