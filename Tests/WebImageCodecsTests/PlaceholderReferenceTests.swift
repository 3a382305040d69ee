import Foundation
import Testing
import WebImageCodecs
import WebImageCore
import WebImageTesting

/// BlurHash and ThumbHash strings equal to the reference implementations' on real corpus
/// images, and decoding them back close to the reference decoders' pixels (SPEC V-14).
///
/// The references are a committed table,
/// `Tests/Fixtures/placeholder-references/placeholder-references.json`, regenerated with
/// `make placeholder-references` (`scripts/placeholder-references.py`; a venv under `.build-placeholder-venv` with the
/// PyPI packages `blurhash` 1.1.5 and `thumbhash-python` 1.0.1). The script computes each
/// reference from the PNG that `webimage convert FILE small.png --first-frame --resize 100x100
/// --fit fit --filter box` writes (no resize for images within 100 × 100) — the same decode and
/// the same box reduction as ``ImagePlaceholder/encoderInput(of:)``, so both sides hash the
/// same RGBA pixels; each test first checks the reduced size equals the table's.
@Suite(.enabled(if: Corpus.isAvailable, "needs the shared corpus"))
struct PlaceholderReferenceTests {
    struct Entry: Decodable, Sendable, CustomTestStringConvertible {
        var file: String
        var width: Int
        var height: Int
        var blurHashComponents: [Int]
        var blurHash: String
        var blurHashDecoded32x32RGB: String
        var thumbHash: String
        var thumbHashDecodedSize: [Int]
        var thumbHashDecodedRGBA: String

        var testDescription: String { file }
    }

    struct Table: Decodable {
        var images: [Entry]
    }

    static let entries: [Entry] = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/placeholder-references/placeholder-references.json")
        guard let data = try? Data(contentsOf: url), let table = try? JSONDecoder().decode(Table.self, from: data) else {
            return []
        }
        return table.images
    }()

    /// The corpus file decoded as `webimage convert --first-frame` decodes it.
    static func decode(_ file: String) throws -> Image {
        var options = DecodeOptions.default
        options.firstFrameOnly = true
        return try CodersManager.shared.decode(try Corpus.data(file), options: options)
    }

    @Test func theTableCoversAtLeastTenImages() {
        #expect(Self.entries.count >= 10)
    }

    @Test(arguments: PlaceholderReferenceTests.entries)
    func hashesEqualTheReferences(_ entry: Entry) throws {
        let image = try Self.decode(entry.file)
        let pixels = ImagePlaceholder.encoderInput(of: image)
        #expect(pixels.width == entry.width && pixels.height == entry.height)
        let components = BlurHashComponents.forAspectRatio(width: pixels.width, height: pixels.height)
        #expect([components.x, components.y] == entry.blurHashComponents)
        #expect(ImagePlaceholder.blurHash(of: image) == entry.blurHash)
        #expect(ImagePlaceholder.thumbHash(of: image) == entry.thumbHash)
        let summary = ImagePlaceholder.summary(of: image)
        #expect(summary.blurHash == entry.blurHash && summary.thumbHash == entry.thumbHash)
    }

    @Test(arguments: PlaceholderReferenceTests.entries)
    func blurHashDecodesToTheReferencePixels(_ entry: Entry) throws {
        let decoded = try ImagePlaceholder.image(fromBlurHash: entry.blurHash, width: 32, height: 32)
        let rgb = try #require(Data(base64Encoded: entry.blurHashDecoded32x32RGB))
        var rgba: [UInt8] = []
        for (index, byte) in rgb.enumerated() {
            rgba.append(byte)
            if index % 3 == 2 { rgba.append(255) }
        }
        let reference = PixelBuffer(width: 32, height: 32, bytes: rgba)
        let difference = try #require(PixelDifference.between(decoded.pixels, reference))
        #expect(difference.psnr >= 45, "\(entry.file): \(difference)")
    }

    /// thumbhash-python sizes its output from the luminance counts after raising them to 3,
    /// Evan Wallace's decoder (and this one) from the counts as stored; they agree when both
    /// counts are at least 3, which holds for every table image but the 1000 × 307 one.
    @Test(arguments: PlaceholderReferenceTests.entries)
    func thumbHashDecodesToTheReferencePixels(_ entry: Entry) throws {
        let decoded = try ImagePlaceholder.image(fromThumbHash: entry.thumbHash)
        guard decoded.width == entry.thumbHashDecodedSize[0], decoded.height == entry.thumbHashDecodedSize[1] else {
            #expect(entry.file == "webp-conformance/lossy_alpha1.webp", "size \(decoded.pixelSize) for \(entry.file)")
            return
        }
        let bytes = try #require(Data(base64Encoded: entry.thumbHashDecodedRGBA))
        let reference = PixelBuffer(width: decoded.width, height: decoded.height, bytes: Array(bytes))
        let difference = try #require(PixelDifference.between(decoded.pixels, reference))
        #expect(difference.psnr >= 45, "\(entry.file): \(difference)")
    }
}
