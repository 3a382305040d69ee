import Foundation
import Testing
import WebImageCore
import WebImageTesting

/// Pixelate and padding: exact sizes and pixels on a real photo and on animations.
@Suite(.enabled(if: Corpus.isAvailable, "needs the shared corpus"))
struct PixelatePaddingTests {
    /// 320 × 480, partly transparent.
    static let photoPath = "png-regressions/bugfixes/gama-srgb-order-issue#304.png"

    /// The premultiplied mean of the block at (`bx`, `by`), edges extended by mirroring (the
    /// edge pixel repeated, then the ones before it).
    static func blockMean(_ p: PixelBuffer, bx: Int, by: Int, n: Int) -> RGBA {
        var sum = [Double](repeating: 0, count: 4)
        for y in by..<(by + n) {
            for x in bx..<(bx + n) {
                let mx = x < p.width ? x : 2 * p.width - 1 - x
                let my = y < p.height ? y : 2 * p.height - 1 - y
                let c = p.pixel(x: mx, y: my)
                let a = Double(c.a)
                sum[0] += Double(c.r) * a / 255
                sum[1] += Double(c.g) * a / 255
                sum[2] += Double(c.b) * a / 255
                sum[3] += a
            }
        }
        let a = sum[3] / Double(n * n)
        guard a >= 0.5 else { return RGBA(r: 0, g: 0, b: 0, a: 0) }
        func channel(_ v: Double) -> UInt8 { UInt8(min(255, (v / Double(n * n) * 255 / a + 0.5).rounded(.down))) }
        return RGBA(r: channel(sum[0]), g: channel(sum[1]), b: channel(sum[2]), a: UInt8(min(255, a + 0.5)))
    }

    static func close(_ a: RGBA, _ b: RGBA) -> Bool {
        abs(Int(a.r) - Int(b.r)) <= 1 && abs(Int(a.g) - Int(b.g)) <= 1 && abs(Int(a.b) - Int(b.b)) <= 1
            && abs(Int(a.a) - Int(b.a)) <= 1
    }

    @Test func pixelateMakesBlocksOfTheMeanColour() throws {
        let photo = try ReferencePNG.read(corpusPath: Self.photoPath)
        let n = 7
        let out = try #require(PixelateTransformer(blockSize: n).transform(Image(pixels: photo), key: "k"))
        #expect(out.width == 320 && out.height == 480)
        // Inner blocks, and the right and bottom edge blocks (320 = 45·7 + 5, 480 = 68·7 + 4).
        for (bx, by) in [(0, 0), (14, 21), (315, 0), (0, 476), (315, 476), (161, 238)] {
            let expected = Self.blockMean(photo, bx: bx, by: by, n: n)
            for (x, y) in [(bx, by), (min(bx + n, 320) - 1, min(by + n, 480) - 1)] {
                let got = out.pixels.pixel(x: x, y: y)
                #expect(Self.close(got, expected), "block \(bx),\(by) pixel \(x),\(y): \(got) vs \(expected)")
            }
        }
        // Block boundaries: columns 6 and 7 differ on this photo's first row of blocks somewhere.
        #expect((0..<480).contains { out.pixels.pixel(x: 6, y: $0) != out.pixels.pixel(x: 7, y: $0) })
        #expect(PixelateTransformer(blockSize: 1).transform(Image(pixels: photo), key: "k")?.pixels === photo)
        #expect(PixelateTransformer(blockSize: 8).transformerKey == "PixelateTransformer(size=8)")
        // A block larger than the image is the whole image: one colour everywhere.
        let small = Image(pixels: TransformFixtures.pattern(width: 6, height: 4))
        let whole = try #require(PixelateTransformer(blockSize: 1000).transform(small, key: "k"))
        #expect(Set(whole.pixels.bytes.chunks4).count == 1)
    }

    @Test func pixelateAppliesToEveryFrame() throws {
        let animation = TransformFixtures.animation(width: 8, height: 6)
        let out = try #require(PixelateTransformer(blockSize: 4).transform(animation, key: "k"))
        #expect(out.frames.count == 3 && out.loopCount == 3)
        #expect(out.frames.map(\.duration) == [0.1, 0.2, 0.3])
        for (index, frame) in out.frames.enumerated() {
            let source = animation.frames[index].pixels
            let expected = Self.blockMean(source, bx: 4, by: 4, n: 4)
            #expect(Self.close(frame.pixels.pixel(x: 7, y: 5), expected))
            #expect(frame.pixels.pixel(x: 0, y: 0) == frame.pixels.pixel(x: 3, y: 3))
        }
    }

    @Test func paddingGrowsTheCanvasAndKeepsThePixels() throws {
        let photo = try ReferencePNG.read(corpusPath: Self.photoPath)
        let white = RGBA(r: 255, g: 255, b: 255)
        let padding = PaddingTransformer(top: 10, right: 20, bottom: 30, left: 40, color: white)
        let out = try #require(padding.transform(Image(pixels: photo), key: "k"))
        #expect(out.width == 320 + 60 && out.height == 480 + 40)
        let opaque = Image(pixels: TransformFixtures.pattern(width: 4, height: 4), hasAlpha: false)
        #expect(padding.transform(opaque, key: "k")?.hasAlpha == false)
        #expect(PaddingTransformer(top: 1, right: 0, bottom: 0, left: 0).transform(opaque, key: "k")?.hasAlpha == true)
        for (x, y) in [(0, 0), (39, 10), (40, 9), (360, 100), (100, 490), (379, 519)] {
            #expect(out.pixels.pixel(x: x, y: y) == white, "\(x),\(y)")
        }
        for (x, y) in [(0, 0), (319, 0), (0, 479), (319, 479), (160, 240)] {
            #expect(out.pixels.pixel(x: x + 40, y: y + 10) == photo.pixel(x: x, y: y))
        }
        #expect(padding.transformerKey == "PaddingTransformer(top=10,right=20,bottom=30,left=40,color=#ffffffff)")
    }

    @Test func transparentPaddingOnAnAnimation() throws {
        let animation = TransformFixtures.animation(width: 8, height: 6)
        let out = try #require(PaddingTransformer(top: 1, right: 2, bottom: 3, left: 4).transform(animation, key: "k"))
        #expect(out.frames.count == 3 && out.width == 14 && out.height == 10 && out.hasAlpha)
        for (index, frame) in out.frames.enumerated() {
            #expect(frame.pixels.pixel(x: 0, y: 0) == RGBA(r: 0, g: 0, b: 0, a: 0))
            #expect(frame.pixels.pixel(x: 13, y: 9) == RGBA(r: 0, g: 0, b: 0, a: 0))
            #expect(frame.pixels.pixel(x: 4, y: 1) == animation.frames[index].pixels.pixel(x: 0, y: 0))
            #expect(frame.pixels.pixel(x: 11, y: 6) == animation.frames[index].pixels.pixel(x: 7, y: 5))
        }
    }

    @Test func paddingBeyondThePixelLimitIsRefused() {
        let image = Image(pixels: TransformFixtures.pattern(width: 4, height: 4))
        #expect(PaddingTransformer(top: 0, right: .max, bottom: 0, left: 10).transform(image, key: "k") == nil)
        #expect(PaddingTransformer(top: 100_000, right: 100_000, bottom: 100_000, left: 100_000).transform(image, key: "k") == nil)
        #expect(PaddingTransformer(top: -5, right: 0, bottom: 0, left: 0).transform(image, key: "k") === image)
    }
}

extension Array where Element == UInt8 {
    /// The bytes in groups of four (one pixel each).
    fileprivate var chunks4: [[UInt8]] { stride(from: 0, to: count, by: 4).map { Array(self[$0..<$0 + 4]) } }
}
