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
        try expectAnimatedSourceMatchesDecode(coder, try Corpus.data(path))
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
