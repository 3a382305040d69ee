import Foundation
import Testing
import WebImageCodecs
import WebImageCore
import WebImageTesting

@Suite("GIF animated source")
struct GIFAnimatedSourceTests {
    let coder = GIFCoder()

    @Test("Given an animated GIF, when frames are read in any order, then each equals the decoded frame",
          .enabled(if: Corpus.isAvailable),
          arguments: ["gif/anim/mixed-disposal.gif", "generated-valid/anim_6f_loop3_64x48.gif", "sdwebimage/TestImage.gif"])
    func framesMatchDecode(path: String) throws {
        let data = try Corpus.data(path)
        let image = try coder.decode(data, options: .default)
        let source = try coder.makeAnimatedSource(data, options: .default)
        #expect(source.frameCount == image.frames.count)
        #expect(source.loopCount == image.loopCount)
        #expect(source.canvasSize == image.pixelSize)
        let order = Array(0..<source.frameCount) + [0, source.frameCount - 1, 1, 1, 0].filter { $0 < source.frameCount }
        for index in order {
            #expect(try source.frame(at: index).bytes == image.frames[index].pixels.bytes, "frame \(index)")
            #expect(source.duration(ofFrame: index) == image.frames[index].duration)
        }
        #expect(throws: WebImageError.self) { _ = try source.frame(at: source.frameCount) }
    }

    @Test("Given thumbnail options, then source frames have the thumbnail size", .enabled(if: Corpus.isAvailable))
    func thumbnailFrames() throws {
        let options = DecodeOptions(thumbnailPixelSize: PixelSize(width: 16, height: 16))
        let source = try coder.makeAnimatedSource(Corpus.data("gif/anim/any-disposal.gif"), options: options)
        #expect(source.canvasSize == PixelSize(width: 16, height: 16))
        let frame = try source.frame(at: 2)
        #expect(frame.width == 16 && frame.height == 16)
    }
}
