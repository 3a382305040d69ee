import Foundation
import Testing
import WebImageCodecs
import WebImageCore
import WebImageTesting

@Suite("JPEG progressive loading")
struct JPEGIncrementalTests {
    let coder = JPEGCoder()

    /// Feeds `data` in `chunk`-byte steps; returns the partial images and the final image.
    private func feed(_ data: Data, chunk: Int, options: DecodeOptions = .default) throws -> (partials: [Image], final: Image?) {
        let decoder = coder.makeIncrementalDecoder(options: options)
        var partials: [Image] = []
        var end = 0
        while end < data.count {
            end = min(data.count, end + chunk)
            let isComplete = end == data.count
            if let image = try decoder.update(data.prefix(end), isComplete: isComplete) {
                if isComplete { return (partials, image) }
                partials.append(image)
            }
        }
        return (partials, nil)
    }

    @Test("Given a progressive JPEG fed in chunks, then partial images appear before the end and the final image equals a full decode", .enabled(if: Corpus.isAvailable))
    func progressiveFile() throws {
        let data = try Corpus.data("jpeg-misc/progressive/3.jpg")  // 11 scans
        #expect(coder.canDecodeIncrementally(data.prefix(16)))
        let (partials, final) = try feed(data, chunk: 4096)
        #expect(!partials.isEmpty)
        #expect(partials.count <= 11, "at most one partial per scan")
        for partial in partials {
            #expect(partial.pixelSize == PixelSize(width: 650, height: 470))
        }
        let full = try coder.decode(data, options: .default)
        let finalImage = try #require(final)
        #expect(PixelDifference.between(finalImage.pixels, full.pixels)?.maxChannelDifference == 0)
        // Later passes get closer to the final image.
        if let first = partials.first, let last = partials.last, partials.count > 1 {
            let early = try #require(PixelDifference.between(first.pixels, full.pixels))
            let late = try #require(PixelDifference.between(last.pixels, full.pixels))
            #expect(late.psnr >= early.psnr)
        }
    }

    @Test("Given a baseline JPEG fed in small chunks, then a bounded number of partial images appear", .enabled(if: Corpus.isAvailable))
    func baselineFile() throws {
        let data = try Corpus.data("exif-orientation/Landscape_6.jpg")
        let (partials, final) = try feed(data, chunk: 256)
        #expect(!partials.isEmpty)
        #expect(partials.count <= 12, "\(partials.count) partial decodes")
        // Orientation is applied to partial images too.
        for partial in partials {
            #expect(partial.pixelSize == PixelSize(width: 600, height: 450))
        }
        #expect(try #require(final).pixelSize == PixelSize(width: 600, height: 450))
    }

    @Test("Given only a header so far, when updated, then nothing is shown yet", .enabled(if: Corpus.isAvailable))
    func headerOnly() throws {
        let data = try Corpus.data("jpeg-misc/progressive/3.jpg")
        let decoder = coder.makeIncrementalDecoder(options: .default)
        #expect(try decoder.update(data.prefix(100), isComplete: false) == nil)
        #expect(try decoder.update(Data(), isComplete: false) == nil)
    }

    @Test("Given a truncated body marked complete, when updated, then it throws WebImageError", .enabled(if: Corpus.isAvailable))
    func truncatedCompleteThrows() throws {
        let data = try Corpus.data("jpeg-misc/progressive/3.jpg")
        let decoder = coder.makeIncrementalDecoder(options: .default)
        _ = try decoder.update(data.prefix(data.count / 2), isComplete: false)
        #expect(throws: WebImageError.self) { try decoder.update(data.prefix(data.count / 2), isComplete: true) }
    }

    @Test("Given thumbnail options, when partial images are produced, then they have the thumbnail size", .enabled(if: Corpus.isAvailable))
    func partialThumbnails() throws {
        let data = try Corpus.data("jpeg-misc/progressive/3.jpg")
        let options = DecodeOptions(thumbnailPixelSize: PixelSize(width: 130, height: 130))
        let (partials, final) = try feed(data, chunk: 8192, options: options)
        #expect(!partials.isEmpty)
        for image in partials + [try #require(final)] {
            #expect(image.pixelSize == PixelSize(width: 130, height: 94))
        }
    }
}
