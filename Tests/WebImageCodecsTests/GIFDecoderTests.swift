import Foundation
import Testing
import WebImageCodecs
import WebImageCore
import WebImageTesting

/// The GIF files of the manifest that must decode.
private let decodableGIFs: [String] = Corpus.entries { entry in
    entry.mustDecode && entry.format.uppercased() == "GIF"
}.map(\.path)

/// Files whose canvas differs from the manifest's Pillow-derived size, with the size this
/// decoder produces. Pillow grows the canvas to cover a first frame that extends past the
/// logical screen; this decoder keeps the logical screen and clips (the GIF89a model), which is
/// what the reference renderings show.
private let logicalScreenExceptions: [String: PixelSize] = [
    "gif/anim/oob.gif": PixelSize(width: 32, height: 32),
    "gif/simple/issue_1455_oversized.gif": PixelSize(width: 10, height: 10),
]

@Suite("GIF decoding")
struct GIFDecoderTests {
    let coder = GIFCoder()

    @Test("Given a manifest GIF, when decoded, then size and frame count match the manifest",
          .enabled(if: Corpus.isAvailable), arguments: decodableGIFs)
    func sizeAndFrameCount(path: String) throws {
        let entry = try #require(Corpus.entries(under: path).first)
        let image = try coder.decode(Corpus.data(path), options: .default)
        let expected = logicalScreenExceptions[path] ?? PixelSize(width: entry.width ?? -1, height: entry.height ?? -1)
        #expect(image.pixelSize == expected)
        #expect(image.frames.count == entry.frames)
        #expect(image.format == .gif)
        for frame in image.frames { #expect(frame.pixels.width == expected.width && frame.pixels.height == expected.height) }
    }

    @Test("Given a GIF with a reference rendering, when decoded, then the first frame matches it exactly",
          .enabled(if: Corpus.isAvailable), arguments: decodableGIFs.filter { !Corpus.referenceRenderings(for: $0).isEmpty })
    func referencePixels(path: String) throws {
        // The references (image-rs) are single PNGs: the first composited frame of an animation.
        let references = Corpus.referenceRenderings(for: path)
        let image = try coder.decode(Corpus.data(path), options: .default)
        let reference = try ReferencePNG.read(corpusPath: references[0])
        let difference = try #require(PixelDifference.between(image.frames[0].pixels, reference))
        #expect(difference.maxChannelDifference <= 1, "\(path): \(difference)")
    }

    @Test("Given a 6-frame GIF with loop 3 and a 0 ms delay, then loop count is 3 and the 0 ms frame lasts 0.1 s",
          .enabled(if: Corpus.isAvailable))
    func loopCountAndDelays() throws {
        let image = try coder.decode(Corpus.data("generated-valid/anim_6f_loop3_64x48.gif"), options: .default)
        #expect(image.loopCount == 3)
        // Stored delays: 10, 0, 2, 10, 10, 10 centiseconds; ≤ 10 ms becomes 100 ms.
        #expect(image.frames.map(\.duration) == [0.1, 0.1, 0.02, 0.1, 0.1, 0.1])
    }

    @Test("Given GIFs with and without a NETSCAPE2.0 extension, then loop counts are its value or 1",
          .enabled(if: Corpus.isAvailable))
    func loopCountRules() throws {
        #expect(try coder.decode(Corpus.data("gif/anim/any-disposal.gif"), options: .default).loopCount == 0)
        #expect(try coder.decode(Corpus.data("sdwebimage/TestLoopCount.gif"), options: .default).loopCount == 1)
        #expect(try coder.decode(Corpus.data("sdwebimage/1@2x.gif"), options: .default).loopCount == 65_535)
    }

    @Test("Given an animated GIF, when decoded with firstFrameOnly, then one frame equal to the first is returned",
          .enabled(if: Corpus.isAvailable))
    func firstFrameOnly() throws {
        let data = try Corpus.data("gif/anim/mixed-disposal.gif")
        let all = try coder.decode(data, options: .default)
        let first = try coder.decode(data, options: DecodeOptions(firstFrameOnly: true))
        #expect(first.frames.count == 1)
        #expect(first.frames[0].pixels.bytes == all.frames[0].pixels.bytes)
    }

    @Test("Given a thumbnail size and a scale factor, when decoded, then every frame fits and the scale is kept",
          .enabled(if: Corpus.isAvailable))
    func thumbnail() throws {
        let data = try Corpus.data("gif/anim/large-gif-anim-combine.gif")
        let options = DecodeOptions(thumbnailPixelSize: PixelSize(width: 100, height: 100), scaleFactor: 2)
        let image = try coder.decode(data, options: options)
        #expect(image.frames.count == 2)
        #expect(image.pixelSize == PixelSize(width: 100, height: 100))
        #expect(image.scale == 2)
        for frame in image.frames { #expect(frame.pixels.width == 100 && frame.pixels.height == 100) }
    }

    @Test("Given manifest GIFs, when reading metadata, then it matches the decoded image", .enabled(if: Corpus.isAvailable),
          arguments: decodableGIFs)
    func metadataMatchesDecode(path: String) throws {
        let data = try Corpus.data(path)
        let image = try coder.decode(data, options: .default)
        let metadata = try coder.readMetadata(data)
        #expect(metadata.format == .gif)
        #expect(metadata.pixelSize == image.pixelSize)
        #expect(metadata.frameCount == image.frames.count)
        #expect(metadata.isAnimated == image.isAnimated)
        #expect(coder.isAnimated(data) == image.isAnimated)
        if image.isAnimated { #expect(metadata.loopCount == image.loopCount) }
        if image.hasAlpha { #expect(metadata.hasAlpha == true) }
    }

    @Test("Given the coders manager, then GIF data is decoded by the GIF coder")
    func registered() {
        #expect(BuiltInCoders.all.contains { $0 is GIFCoder })
    }
}
