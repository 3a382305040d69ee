import Foundation
import Testing
import WebImageCodecs
import WebImageCore
import WebImageTesting

@Suite("PNG reference renderings")
struct PNGReferenceRenderingTests {
    @Test(
        "Given a corpus PNG/APNG with reference renderings, when decoded, then every frame matches its reference",
        .enabled(if: Corpus.isAvailable), arguments: PNGCorpus.withReferences)
    func matchesReference(path: String) throws {
        let references = Corpus.referenceRenderings(for: path)
        let image = try PNGCoder().decode(try Corpus.data(path), options: DecodeOptions(applyOrientation: false))
        #expect(image.frames.count == references.count || references.count == 1)
        for (index, reference) in references.enumerated() where index < image.frames.count {
            let expected = try ReferencePNG.read(corpusPath: reference)
            let difference = try #require(PixelDifference.between(image.frames[index].pixels, expected))
            #expect(difference.maxChannelDifference <= 2, "frame \(index + 1): \(difference)")
        }
    }

    @Test("Given the pngsuite, when decoded, then pixels equal libspng's own RGBA8 output", .enabled(if: Corpus.isAvailable))
    func pngsuiteMatchesLibspng() throws {
        // Pixels as stored (libspng applies no gAMA, cHRM or iCCP either).
        var options = DecodeOptions()
        options.colorManagement = .ignore
        for entry in PNGCorpus.mustDecode where entry.path.hasPrefix("pngsuite") {
            let image = try PNGCoder().decode(try Corpus.data(entry.path), options: options)
            let expected = try ReferencePNG.read(corpusPath: entry.path)
            let difference = try #require(PixelDifference.between(image.pixels, expected))
            #expect(difference.maxChannelDifference == 0, "\(entry.path): \(difference)")
        }
    }

    @Test("Given PNGs with and without transparency, then hasAlpha follows the colour type and tRNS", .enabled(if: Corpus.isAvailable))
    func alphaFromColourType() throws {
        let coder = PNGCoder()
        #expect(try coder.decode(Corpus.data("pngsuite/basn2c08.png"), options: .default).hasAlpha == false)
        #expect(try coder.decode(Corpus.data("pngsuite/basn6a08.png"), options: .default).hasAlpha == true)
        #expect(try coder.decode(Corpus.data("pngsuite/basn4a08.png"), options: .default).hasAlpha == true)
        #expect(try coder.decode(Corpus.data("pngsuite/tbrn2c08.png"), options: .default).hasAlpha == true)
        #expect(try coder.decode(Corpus.data("pngsuite/tp0n3p08.png"), options: .default).hasAlpha == false)
        #expect(try coder.decode(Corpus.data("pngsuite/tp1n3p08.png"), options: .default).hasAlpha == true)
    }
}
