import Foundation
import Testing
import WebImageCodecs
import WebImageCore
import WebImageTesting

@Suite("PNG incremental decoding")
struct PNGIncrementalDecoderTests {
    let coder = PNGCoder()

    @Test(
        "Given an interlaced PNG fed in chunks, then partial images appear and the final image equals a full decode",
        .enabled(if: Corpus.isAvailable),
        arguments: ["pngsuite/basi6a08.png", "pngsuite/basi2c16.png", "pngsuite/basi3p08.png", "png-misc/16bpc/basi0g16.png"])
    func interlacedProgression(path: String) throws {
        let data = try Corpus.data(path)
        #expect(coder.canDecodeIncrementally(data))
        let decoder = coder.makeIncrementalDecoder(options: .default)
        var partials: [Image] = []
        var end = 64
        while end < data.count {
            if let image = try decoder.update(data.prefix(end), isComplete: false) { partials.append(image) }
            end += 64
        }
        let final = try #require(try decoder.update(data, isComplete: true))
        let full = try coder.decode(data, options: .default)
        #expect(partials.count >= 1)
        #expect(partials.allSatisfy { $0.pixelSize == full.pixelSize })
        #expect(final.pixels.bytes == full.pixels.bytes)
    }

    @Test("Given a non-interlaced PNG cut in half, then the partial image has the top rows and a transparent bottom", .enabled(if: Corpus.isAvailable))
    func nonInterlacedRows() throws {
        let data = try Corpus.data("pngsuite/basn2c08.png")
        let full = try coder.decode(data, options: .default)
        let decoder = coder.makeIncrementalDecoder(options: .default)
        let partial = try #require(try decoder.update(data.prefix(data.count * 2 / 3), isComplete: false))
        #expect(partial.pixels.pixel(x: 5, y: 0) == full.pixels.pixel(x: 5, y: 0))
        #expect(partial.pixels.pixel(x: 5, y: 31).a == 0)
        // Nothing new: the same prefix again gives no new image.
        #expect(try decoder.update(data.prefix(data.count * 2 / 3), isComplete: false) == nil)
        // More data: more rows.
        let later = try #require(try decoder.update(data.prefix(data.count - 20), isComplete: false))
        let decodedRows = { (image: Image) in (0..<32).filter { image.pixels.pixel(x: 5, y: $0).a != 0 }.count }
        #expect(decodedRows(later) > decodedRows(partial))
    }

    @Test("Given an APNG whose default image is hidden, then no partial image is shown from it", .enabled(if: Corpus.isAvailable))
    func hiddenDefaultImageHasNoPreview() throws {
        let data = try Corpus.data("apng/wpt/fcTL-blend-source-transparent.png")
        let decoder = coder.makeIncrementalDecoder(options: .default)
        for end in stride(from: 100, to: data.count, by: 50) {
            #expect(try decoder.update(data.prefix(end), isComplete: false) == nil)
        }
        #expect(try decoder.update(data, isComplete: true)?.frames.count == 2)
    }

    @Test("Given only a header, then no image is produced yet; given a broken complete file, then it throws", .enabled(if: Corpus.isAvailable))
    func tooLittleData() throws {
        let data = try Corpus.data("pngsuite/basi0g08.png")
        let decoder = coder.makeIncrementalDecoder(options: .default)
        #expect(try decoder.update(data.prefix(40), isComplete: false) == nil)
        #expect(throws: WebImageError.self) { try decoder.update(data.prefix(40), isComplete: true) }
    }
}
