import Foundation
import Testing
import WebImageCodecs
import WebImageCore
import WebImageTesting

@Suite("WebP corpus")
struct WebPCorpusTests {
    let coder = WebPCoder()

    @Test(
        "Given a WebP the manifest marks decodable, when decoded, then size and frame count match the manifest",
        .enabled(if: Corpus.isAvailable), arguments: WebPTestCorpus.decodable.map(\.path))
    func decodesToManifestSize(path: String) throws {
        let entry = try #require(Corpus.manifest.first { $0.path == path })
        let data = try Corpus.data(path)
        let image = try coder.decode(data, options: .default)
        #expect(image.width == entry.width)
        #expect(image.height == entry.height)
        #expect(image.frames.count == entry.frames)
        #expect(image.format == .webp)

        let metadata = try coder.readMetadata(data)
        #expect(metadata.pixelSize == image.pixelSize)
        #expect(metadata.frameCount == entry.frames)
        #expect(metadata.isAnimated == (entry.animated == "yes"))
    }

    @Test(
        "Given a WebP with a reference rendering, when decoded, then its pixels match the reference",
        .enabled(if: Corpus.isAvailable),
        arguments: WebPTestCorpus.decodable.map(\.path).filter { !Corpus.referenceRenderings(for: $0).isEmpty })
    func matchesReferenceRendering(path: String) throws {
        let image = try coder.decode(Corpus.data(path), options: .default)
        let references = Corpus.referenceRenderings(for: path)
        // Lossless files must match exactly. Lossy ones may differ by rounding in the YUV→RGB
        // conversion of another decoder: measured at most 1 (mean 0.064) on anim.webp.
        let lossless = path.contains("lossless")
        // A single reference for an animation is its first frame.
        for (index, reference) in references.enumerated() {
            let expected = try ReferencePNG.read(corpusPath: reference)
            let difference = try #require(PixelDifference.between(image.frames[index].pixels, expected))
            if lossless {
                #expect(difference.maxChannelDifference == 0, "\(path) frame \(index): \(difference)")
            } else {
                #expect(difference.maxChannelDifference <= 2, "\(path) frame \(index): \(difference)")
                #expect(difference.meanDifference <= 0.25, "\(path) frame \(index): \(difference)")
            }
        }
    }

    @Test(
        "Given the libwebp conformance vectors, when decoded to RGBA, then the PAM output matches libwebp's md5",
        .enabled(if: Corpus.isAvailable))
    func conformanceMD5() throws {
        let vectors = Corpus.entries(under: "webp-conformance/") { $0.format == "WEBP" }
        var matched: [String] = []
        var mismatched: [String] = []
        var unlisted: [String] = []
        for entry in vectors {
            let name = String(entry.path.dropFirst("webp-conformance/".count))
            guard let expected = WebPTestCorpus.pamMD5[name] else {
                unlisted.append(name)
                continue
            }
            let image = try coder.decode(Corpus.data(entry.path), options: .default)
            if WebPTestMD5.hex(WebPTestCorpus.pam(image.pixels)) == expected {
                matched.append(name)
            } else {
                mismatched.append(name)
            }
        }
        // 40 vectors have a PAM md5; the lossless_vec_* files (checked below), bryce.webp and
        // lossless_color_transform.webp have none.
        #expect(matched.count == 40)
        #expect(mismatched.isEmpty)
        #expect(unlisted.count == 34)
    }

    @Test(
        "Given the lossless_vec_1_* vectors, when decoded, then each is the documented 16x16 blue/half-red grid",
        .enabled(if: Corpus.isAvailable), arguments: 0..<16)
    func losslessGridVectors(index: Int) throws {
        let image = try coder.decode(Corpus.data("webp-conformance/lossless_vec_1_\(index).webp"), options: .default)
        #expect(image.pixelSize == PixelSize(width: 16, height: 16))
        let blue = RGBA(r: 0, g: 0, b: 255, a: 255)
        let red = RGBA(r: 255, g: 0, b: 0, a: 128)
        for y in 0..<16 {
            for x in 0..<16 {
                #expect(image.pixels.pixel(x: x, y: y) == ((x + y) % 2 == 0 ? blue : red), "(\(x), \(y))")
            }
        }
    }

    @Test(
        "Given the lossless_vec_2_* vectors, when decoded, then all give the same opaque image",
        .enabled(if: Corpus.isAvailable))
    func losslessPeakVectors() throws {
        let first = try coder.decode(Corpus.data("webp-conformance/lossless_vec_2_0.webp"), options: .default)
        #expect(first.pixels.isFullyOpaque())
        for index in 1..<16 {
            let image = try coder.decode(Corpus.data("webp-conformance/lossless_vec_2_\(index).webp"), options: .default)
            #expect(image.pixels.bytes == first.pixels.bytes, "lossless_vec_2_\(index)")
        }
    }

    @Test(
        "Given a fuzzed WebP seed, when decoded every way, then it fails cleanly and quickly",
        .enabled(if: Corpus.isAvailable), arguments: WebPTestCorpus.fuzzSeeds)
    func fuzzSeedIsHandled(path: String) throws {
        let data = try Corpus.data(path)
        let clock = ContinuousClock()
        let start = clock.now
        WebPTestCorpus.exercise(data)
        // Hang guard only (not a performance assertion).
        #expect(clock.now - start < .seconds(2))
        // The seeds are all invalid (corpus README): decoding must fail with a typed error.
        #expect(throws: WebImageError.self) { try coder.decode(data, options: .default) }
    }

    @Test(
        "Given a valid WebP cut short at many points, when decoded every way, then it fails cleanly or decodes",
        .enabled(if: Corpus.isAvailable),
        arguments: ["webp-misc/extended_images/anim.webp", "webp-misc/extended_images/lossy_alpha.webp",
                    "webp-misc/lossless_images/simple.webp", "generated-valid/anim_6f_lossless_64x48.webp"])
    func truncationsAreHandled(path: String) throws {
        let data = try Corpus.data(path)
        let step = max(1, data.count / 23)
        for length in stride(from: 0, to: data.count, by: step) {
            WebPTestCorpus.exercise(data.prefix(length))
            #expect(throws: WebImageError.self) { try coder.decode(data.prefix(length), options: .default) }
        }
    }
}

extension WebPTestCorpus {
    /// Runs every entry point of the coder on `data`; any typed error is fine, a crash is not.
    static func exercise(_ data: Data) {
        let coder = WebPCoder()
        _ = try? coder.readMetadata(data)
        _ = coder.isAnimated(data)
        _ = try? coder.decode(data, options: .default)
        _ = try? coder.decode(data, options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 16, height: 16)))
        if let source = try? coder.makeAnimatedSource(data, options: .default), source.frameCount > 0 {
            _ = try? source.frame(at: source.frameCount - 1)
            _ = try? source.frame(at: 0)
        }
        let incremental = coder.makeIncrementalDecoder(options: .default)
        let half = data.prefix(data.count / 2)
        _ = try? incremental.update(half, isComplete: false)
        _ = try? incremental.update(data, isComplete: true)
    }
}
