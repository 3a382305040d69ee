import Foundation
import Testing
import WebImageCodecs
import WebImageCore
import WebImageTesting

@Suite("GIF progressive decoding")
struct GIFProgressiveTests {
    let coder = GIFCoder()

    @Test("Given a GIF arriving in chunks, when fed to one incremental decoder, then partial first frames grow and the final image equals a full decode",
          .enabled(if: Corpus.isAvailable),
          arguments: ["gif/anim/interlaced.gif", "generated-valid/anim_6f_loop3_64x48.gif", "gif/simple/alpha_gif_a.gif"])
    func growingData(path: String) throws {
        let data = try Corpus.data(path)
        #expect(coder.canDecodeIncrementally(data.prefix(16)))
        let decoder = coder.makeIncrementalDecoder(options: .default)
        var partials: [Image] = []
        var length = 0
        while length < data.count {
            length = min(data.count, length + 64)
            if let image = try decoder.update(data.prefix(length), isComplete: false) { partials.append(image) }
        }
        let final = try #require(try decoder.update(data, isComplete: true))
        let full = try coder.decode(data, options: .default)
        #expect(!partials.isEmpty)
        #expect(final.frames.count == full.frames.count)
        #expect(final.pixels.bytes == full.pixels.bytes)
        for partial in partials {
            #expect(partial.pixelSize == full.pixelSize)
            #expect(partial.frames.count == 1)
        }
        // The last partial is the complete first frame.
        #expect(partials.last?.pixels.bytes == full.frames[0].pixels.bytes)
    }

    @Test("Given every prefix of a GIF, when fed as incomplete data, then nothing throws or crashes",
          .enabled(if: Corpus.isAvailable))
    func everyPrefix() throws {
        let data = try Corpus.data("gif/anim/interlaced.gif")
        let decoder = coder.makeIncrementalDecoder(options: .default)
        for length in 0...data.count {
            _ = try decoder.update(data.prefix(length), isComplete: false)
        }
    }

    @Test("Given incomplete data that is not a GIF, when finished, then badImageData is thrown")
    func finalFailure() {
        let decoder = coder.makeIncrementalDecoder(options: .default)
        #expect(throws: WebImageError.self) { _ = try decoder.update(Data("GIF89a".utf8), isComplete: true) }
    }
}
