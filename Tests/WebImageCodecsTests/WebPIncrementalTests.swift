import Foundation
import Testing
import WebImageCodecs
import WebImageCore
import WebImageTesting

@Suite("WebP progressive loading")
struct WebPIncrementalTests {
    let coder = WebPCoder()

    /// Feeds `data` in `chunks` growing prefixes; returns the images produced before the end
    /// and the final one.
    private func feed(_ data: Data, chunks: Int, options: DecodeOptions = .default) throws -> ([Image], Image?) {
        let decoder = coder.makeIncrementalDecoder(options: options)
        var partials: [Image] = []
        let step = max(1, data.count / chunks)
        var length = step
        while length < data.count {
            if let image = try decoder.update(data.prefix(length), isComplete: false) { partials.append(image) }
            length += step
        }
        return (partials, try decoder.update(data, isComplete: true))
    }

    @Test(
        "Given a still WebP fed in chunks, then partial images appear before the end and the final image equals a full decode",
        .enabled(if: Corpus.isAvailable),
        arguments: ["sdwebimage/TestImageStatic.webp", "webp-misc/lossless_images/simple.webp",
                    "webp-conformance/lossy_alpha1.webp"])
    func chunkedDecode(path: String) throws {
        let data = try Corpus.data(path)
        #expect(coder.canDecodeIncrementally(data.prefix(16)))
        let (partials, final) = try feed(data, chunks: 10)
        let full = try coder.decode(data, options: .default)
        #expect(!partials.isEmpty)
        #expect(partials.allSatisfy { $0.pixelSize == full.pixelSize })
        let image = try #require(final)
        #expect(image.pixels.bytes == full.pixels.bytes)
        #expect(image.hasAlpha == full.hasAlpha)
        // A partial image is the top of the final image; the rows not decoded yet are transparent.
        let partial = try #require(partials.first)
        #expect(partial.pixels.bytes.suffix(full.pixels.bytesPerRow).allSatisfy { $0 == 0 })
        let topRow = partial.pixels.bytes.prefix(full.pixels.bytesPerRow)
        #expect(topRow.elementsEqual(full.pixels.bytes.prefix(full.pixels.bytesPerRow)))
    }

    @Test("Given a thumbnail size, when fed in chunks, then the final image has the thumbnail size",
          .enabled(if: Corpus.isAvailable))
    func chunkedThumbnail() throws {
        let data = try Corpus.data("sdwebimage/TestImageStatic.webp")
        let options = DecodeOptions(thumbnailPixelSize: PixelSize(width: 100, height: 100))
        let (_, final) = try feed(data, chunks: 5, options: options)
        #expect(try #require(final).pixelSize == coder.decode(data, options: options).pixelSize)
    }

    @Test("Given an animated WebP fed in chunks, then nothing is shown until complete and then all frames",
          .enabled(if: Corpus.isAvailable))
    func chunkedAnimation() throws {
        let data = try Corpus.data("webp-misc/extended_images/anim.webp")
        let (partials, final) = try feed(data, chunks: 6)
        #expect(partials.isEmpty)
        #expect(try #require(final).frames.count == 6)
    }

    @Test("Given a truncated WebP marked complete, when updated, then badImageData is thrown",
          .enabled(if: Corpus.isAvailable))
    func truncatedAtCompletion() throws {
        let data = try Corpus.data("sdwebimage/TestImageStatic.webp")
        let decoder = coder.makeIncrementalDecoder(options: .default)
        _ = try decoder.update(data.prefix(data.count / 3), isComplete: false)
        #expect(throws: WebImageError.self) { try decoder.update(data.prefix(data.count / 2), isComplete: true) }
    }

    @Test("Given corrupt bytes, when fed, then nothing is thrown before completion and an error is thrown at completion")
    func corruptData() throws {
        var data = Data("RIFF".utf8)
        data.append(contentsOf: [0x40, 0, 0, 0])
        data.append(contentsOf: Array("WEBPVP8 ".utf8))
        data.append(contentsOf: [0x34, 0, 0, 0])
        data.append(contentsOf: [UInt8](repeating: 0xA5, count: 60))
        let decoder = coder.makeIncrementalDecoder(options: .default)
        #expect(try decoder.update(data.prefix(30), isComplete: false) == nil)
        #expect(throws: WebImageError.self) { try decoder.update(data, isComplete: true) }
    }
}
