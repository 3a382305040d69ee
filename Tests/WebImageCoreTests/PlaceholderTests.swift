import Foundation
import Testing
import WebImageCore
import WebImageTesting

/// BlurHash, ThumbHash and dominant colours on made pixels: the component rule, decoding,
/// hostile strings and size bounds (the reference comparison on corpus images is
/// `PlaceholderReferenceTests` in WebImageCodecsTests).
struct PlaceholderTests {
    /// Wolt's example hash from the BlurHash README.
    static let woltExample = "LEHV6nWB2yk8pyo0adR*.7kCMdnj"

    static func solid(_ color: RGBA, width: Int = 40, height: Int = 30) -> Image {
        Image(pixels: TransformFixtures.buffer(width: width, height: height) { _, _ in color })
    }

    @Test func componentsFollowTheAspectRatio() {
        let cases: [(Int, Int, Int, Int)] = [
            (400, 300, 4, 3), (300, 300, 4, 4), (1920, 1080, 4, 2), (300, 400, 3, 4), (1000, 10, 4, 1), (1, 1, 4, 4),
        ]
        for (w, h, x, y) in cases {
            let c = BlurHashComponents.forAspectRatio(width: w, height: h)
            #expect(c.x == x && c.y == y, "\(w)x\(h) → \(c)")
        }
        #expect(BlurHashComponents(x: 0, y: 3) == nil)
        #expect(BlurHashComponents(x: 9, y: 10) == nil)
        #expect(BlurHashComponents(x: 9, y: 9) != nil)
    }

    @Test func aSolidColourHashesToThatColour() throws {
        let image = Self.solid(RGBA(r: 200, g: 40, b: 90))
        let hash = ImagePlaceholder.blurHash(of: image)
        #expect(hash.count == 4 + 2 * 4 * 3)
        #expect(ImagePlaceholder.blurHashComponents(hash) == BlurHashComponents(x: 4, y: 3))
        let decoded = try ImagePlaceholder.image(fromBlurHash: hash, width: 8, height: 6)
        #expect(decoded.width == 8 && decoded.height == 6 && !decoded.hasAlpha)
        // BlurHash's cosines are not pixel-centred, so even a solid colour has small AC terms:
        // the reference decoder also gives (198, 39, 89) here.
        #expect(decoded.pixels.pixel(x: 3, y: 3) == RGBA(r: 198, g: 39, b: 89))
        #expect(hash == "L5M_Ai]ofQ]o||jufQjufQfQfQfQ")

        let thumb = ImagePlaceholder.thumbHash(of: image)
        let small = try ImagePlaceholder.image(fromThumbHash: thumb)
        // 40 × 30 opaque: 7 × 5 luminance terms, so 32 × round(32 · 5/7) = 32 × 23.
        #expect(small.width == 32 && small.height == 23)
        let p = small.pixels.pixel(x: 16, y: 11)
        // ThumbHash keeps 6 bits of the average colour in its own colour space.
        #expect(abs(Int(p.r) - 200) <= 12 && abs(Int(p.g) - 40) <= 12 && abs(Int(p.b) - 90) <= 12, "\(p)")
        #expect(p.a == 255)
    }

    @Test func wolfsExampleDecodes() throws {
        let image = try ImagePlaceholder.image(fromBlurHash: Self.woltExample, width: 20, height: 12, punch: 1.5)
        #expect(image.width == 20 && image.height == 12)
        #expect(ImagePlaceholder.blurHashComponents(Self.woltExample) == BlurHashComponents(x: 4, y: 3))
    }

    @Test func encodersReduceLargeImagesToTheEncoderInput() {
        let big = Image(pixels: TransformFixtures.pattern(width: 1000, height: 250))
        let input = ImagePlaceholder.encoderInput(of: big)
        #expect(input.width == 100 && input.height == 25)
        #expect(ImagePlaceholder.blurHash(of: big) == ImagePlaceholder.blurHash(ofPixels: input, components: .forAspectRatio(width: 100, height: 25)))
        #expect(ImagePlaceholder.thumbHash(of: big) == ImagePlaceholder.thumbHash(ofPixels: input))
        // The pixel entry points reduce large inputs the same way.
        #expect(ImagePlaceholder.blurHash(ofPixels: big.pixels, components: .forAspectRatio(width: 100, height: 25)) == ImagePlaceholder.blurHash(of: big))
        #expect(ImagePlaceholder.thumbHash(ofPixels: big.pixels) == ImagePlaceholder.thumbHash(of: big))
        #expect(ImagePlaceholder.dominantColors(ofPixels: big.pixels) == ImagePlaceholder.dominantColors(of: big))
        let small = Image(pixels: TransformFixtures.pattern(width: 60, height: 80))
        #expect(ImagePlaceholder.encoderInput(of: small) === small.pixels)
    }

    @Test func transparencyIsKeptByThumbHash() throws {
        // Left half opaque red, right half transparent.
        let pixels = TransformFixtures.buffer(width: 40, height: 40) { x, _ in
            x < 20 ? RGBA(r: 255, g: 0, b: 0) : RGBA(r: 0, g: 0, b: 0, a: 0)
        }
        let hash = ImagePlaceholder.thumbHashBytes(ofPixels: pixels)
        #expect(hash[2] & 0x80 != 0)
        let decoded = try ImagePlaceholder.image(fromThumbHashBytes: hash)
        #expect(decoded.hasAlpha)
        #expect(decoded.pixels.pixel(x: 2, y: 16).a > 180)
        #expect(decoded.pixels.pixel(x: 29, y: 16).a < 80)
    }

    @Test(arguments: [
        "", "L", "LEHV6", "LEHV6nWB2yk8pyo0adR*.7kCMdn", "LEHV6nWB2yk8pyo0adR*.7kCMdnjj", "LEHV6nWB2yk8pyo0adR*.7kCMdn\"",
        "\u{00e9}EHV6nWB2yk8pyo0adR*.7kCMdnj", "~EHV6nWB2yk8pyo0adR*.7kCMdnj", String(repeating: "0", count: 10_000),
        "00~~~~",
    ])
    func invalidBlurHashesAreTypedErrors(_ text: String) {
        #expect(throws: WebImageError.self) { try ImagePlaceholder.image(fromBlurHash: text) }
        #expect(ImagePlaceholder.blurHashComponents(text) == nil)
    }

    @Test(arguments: ["", "!!!!", "AAAA", "AAAAAAA", String(repeating: "A", count: 5000), "AAAAAIA="])
    func invalidThumbHashesAreTypedErrors(_ text: String) {
        #expect(throws: WebImageError.self) { try ImagePlaceholder.image(fromThumbHash: text) }
    }

    @Test func everyShortThumbHashDecodesOrFailsCleanly() {
        // All headers with a few AC bytes: never a crash, sizes always within 32 × 32.
        var random = SeededRandom(seed: 26)
        for length in 0...30 {
            for _ in 0..<40 {
                let bytes = Data((0..<length).map { _ in UInt8.random(in: 0...255, using: &random) })
                if let image = try? ImagePlaceholder.image(fromThumbHashBytes: bytes) {
                    #expect(image.width >= 1 && image.width <= 32 && image.height >= 1 && image.height <= 32)
                }
            }
        }
    }

    @Test func decodedSizesAreBounded() {
        #expect(throws: WebImageError.self) { try ImagePlaceholder.image(fromBlurHash: Self.woltExample, width: 0, height: 10) }
        #expect(throws: WebImageError.self) { try ImagePlaceholder.image(fromBlurHash: Self.woltExample, width: 10, height: -1) }
        #expect(throws: WebImageError.self) { try ImagePlaceholder.image(fromBlurHash: Self.woltExample, width: 257, height: 10) }
        #expect(throws: WebImageError.self) { try ImagePlaceholder.image(fromBlurHash: Self.woltExample, width: .max, height: .max) }
        #expect((try? ImagePlaceholder.image(fromBlurHash: Self.woltExample, width: 256, height: 256, punch: .nan)) != nil)
    }

    @Test func dominantColoursOfFourBlocks() {
        // 50 % blue, 25 % red, 15 % green, 10 % white, and a transparent strip that is ignored.
        // 100 × 100, so no reduction mixes the blocks.
        let pixels = TransformFixtures.buffer(width: 100, height: 100) { x, y in
            if y >= 90 { return RGBA(r: 0, g: 0, b: 0, a: 0) }
            if x < 50 { return RGBA(r: 0, g: 0, b: 255) }
            if x < 75 { return RGBA(r: 255, g: 0, b: 0) }
            if x < 90 { return RGBA(r: 0, g: 255, b: 0) }
            return RGBA(r: 255, g: 255, b: 255)
        }
        let colors = ImagePlaceholder.dominantColors(ofPixels: pixels, count: 5)
        #expect(colors.map(\.hex) == ["#0000ff", "#ff0000", "#00ff00", "#ffffff"])
        #expect(colors.map { ($0.share * 100).rounded() } == [50, 25, 15, 10])
        #expect(ImagePlaceholder.dominantColors(ofPixels: pixels, count: 2).count == 2)
        #expect(abs(ImagePlaceholder.dominantColors(ofPixels: pixels, count: 2).map(\.share).reduce(0, +) - 1) < 1e-9)
    }

    @Test func dominantColoursAreDeterministicAndSumToOne() {
        let image = Image(pixels: TransformFixtures.pattern(width: 300, height: 200, seed: 3))
        let first = ImagePlaceholder.dominantColors(of: image)
        #expect(first.count == 5)
        #expect(first == ImagePlaceholder.dominantColors(of: image))
        #expect(abs(first.map(\.share).reduce(0, +) - 1) < 1e-9)
        #expect(zip(first, first.dropFirst()).allSatisfy { $0.share >= $1.share })
    }

    @Test func aTransparentImageHasNoDominantColours() {
        let image = Self.solid(RGBA(r: 10, g: 10, b: 10, a: 0))
        #expect(ImagePlaceholder.dominantColors(of: image).isEmpty)
        #expect(ImagePlaceholder.summary(of: image).dominantColors.isEmpty)
    }

    @Test func theEncoderInputIsTurnedUpright() {
        let pixels = TransformFixtures.pattern(width: 30, height: 20)
        let rotated = Image(pixels: pixels, orientation: .right)
        let input = ImagePlaceholder.encoderInput(of: rotated)
        #expect(input.width == 20 && input.height == 30)
    }
}
