import Foundation
import Testing
import WebImageCore
import WebImageTesting

/// SPEC T-3: our resampler against Pillow's `Image.resize` on the same inputs
/// (references made by `scripts/make-transform-references.py`).
@Suite("Resize quality against Pillow")
struct TransformQualityTests {
    struct Case: Sendable, CustomStringConvertible {
        let input: String
        let width: Int
        let height: Int
        let filter: ResizeFilter
        var reference: String { "\(input)-\(width)x\(height)-\(filter.rawValue).png" }
        var description: String { reference }
    }

    static let filters: [ResizeFilter] = [.lanczos3, .catmullRom, .bilinear, .box]
    static let generated: [Case] = filters.flatMap { f in
        [
            Case(input: "pattern", width: 200, height: 150, filter: f),
            Case(input: "pattern", width: 64, height: 48, filter: f),
            Case(input: "small", width: 200, height: 150, filter: f),
            Case(input: "small", width: 75, height: 41, filter: f),
        ]
    }
    static let photo: [Case] = filters.flatMap { f in
        [
            Case(input: "photo", width: 200, height: 150, filter: f),
            Case(input: "photo", width: 64, height: 48, filter: f),
        ]
    }
    static let photoPath = "png-regressions/bugfixes/gama-srgb-order-issue#304.png"

    func check(_ input: PixelBuffer, _ c: Case) throws {
        let expected = try ReferencePNG.read(TransformFixtures.url(c.reference))
        let actual = input.resized(to: PixelSize(width: c.width, height: c.height), filter: c.filter)
        let diff = try #require(PixelDifference.between(actual, expected))
        #expect(diff.psnr >= 40, "\(c): \(diff)")
    }

    @Test("Given a generated input, when resized with each filter, then PSNR vs Pillow ≥ 40 dB", arguments: generated)
    func generatedInput(_ c: Case) throws {
        let input = try ReferencePNG.read(TransformFixtures.url("\(c.input).png"))
        try check(input, c)
    }

    @Test(
        "Given the corpus photo, when resized with each filter, then PSNR vs Pillow ≥ 40 dB",
        .enabled(if: Corpus.isAvailable), arguments: photo)
    func photoInput(_ c: Case) throws {
        let input = try ReferencePNG.read(Corpus.url(Self.photoPath))
        try check(input, c)
    }
}
