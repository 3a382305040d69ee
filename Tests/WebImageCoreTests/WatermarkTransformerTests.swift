import Foundation
import Testing
import WebImageCore
import WebImageTesting

/// Watermark placement, size, opacity and tiling with imgproxy's rules, on a real photo.
@Suite(.enabled(if: Corpus.isAvailable, "needs the shared corpus"))
struct WatermarkTransformerTests {
    /// 320 × 480, partly transparent.
    static let photo = Image(pixels: (try? ReferencePNG.read(corpusPath: PixelatePaddingTests.photoPath)) ?? TransformFixtures.pattern(width: 320, height: 480))
    static let red = RGBA(r: 255, g: 0, b: 0)

    static func mark(_ width: Int, _ height: Int, _ color: RGBA = red) -> Image {
        Image(pixels: TransformFixtures.buffer(width: width, height: height) { _, _ in color })
    }

    @Test(arguments: [
        (WatermarkPosition.center, 144, 224), (.north, 144, 0), (.south, 144, 448), (.east, 288, 224), (.west, 0, 224),
        (.northEast, 288, 0), (.northWest, 0, 0), (.southEast, 288, 448), (.southWest, 0, 448),
    ])
    func placementAtEachPosition(_ position: WatermarkPosition, _ x: Int, _ y: Int) throws {
        let transformer = WatermarkTransformer(watermark: Self.mark(32, 32), position: position)
        let size = Self.photo.pixelSize
        #expect(transformer.placement(on: size) == PixelRect(x: x, y: y, width: 32, height: 32))
        let out = try #require(transformer.transform(Self.photo, key: "k"))
        #expect(out.pixelSize == size)
        // Inside the rectangle: the opaque mark; just outside: the photo's own pixels.
        #expect(out.pixels.pixel(x: x, y: y) == Self.red)
        #expect(out.pixels.pixel(x: x + 31, y: y + 31) == Self.red)
        if x + 32 < 320 { #expect(out.pixels.pixel(x: x + 32, y: y) == Self.photo.pixels.pixel(x: x + 32, y: y)) }
        if y > 0 { #expect(out.pixels.pixel(x: x, y: y - 1) == Self.photo.pixels.pixel(x: x, y: y - 1)) }
    }

    @Test func offsetsInPixelsAndFractionsMoveInwards() {
        let size = Self.photo.pixelSize
        func place(_ p: WatermarkPosition, _ x: Double, _ y: Double) -> PixelRect {
            WatermarkTransformer(watermark: Self.mark(32, 32), position: p, xOffset: x, yOffset: y).placement(on: size)
        }
        #expect(place(.southEast, 10, 20) == PixelRect(x: 278, y: 428, width: 32, height: 32))
        #expect(place(.center, 10, 20) == PixelRect(x: 154, y: 244, width: 32, height: 32))
        #expect(place(.northWest, 0.1, 0.05) == PixelRect(x: 32, y: 24, width: 32, height: 32))
        #expect(place(.east, 0.5, 0) == PixelRect(x: 128, y: 224, width: 32, height: 32))
        // Far outside: clamped so one pixel stays inside.
        #expect(place(.northWest, -1000, -1000) == PixelRect(x: -31, y: -31, width: 32, height: 32))
        #expect(place(.northWest, 5000, 0.99) == PixelRect(x: 319, y: 475, width: 32, height: 32))
    }

    @Test func scaleFitsTheMarkInsideAFractionOfTheResult() throws {
        let size = Self.photo.pixelSize
        #expect(WatermarkTransformer(watermark: Self.mark(32, 32), scale: 0.25).markSize(on: size) == PixelSize(width: 80, height: 80))
        #expect(WatermarkTransformer(watermark: Self.mark(40, 10), scale: 0.5).markSize(on: size) == PixelSize(width: 160, height: 40))
        #expect(WatermarkTransformer(watermark: Self.mark(40, 10), scale: 0).markSize(on: size) == PixelSize(width: 40, height: 10))
        let transformer = WatermarkTransformer(watermark: Self.mark(32, 32), position: .southEast, scale: 0.25)
        #expect(transformer.placement(on: size) == PixelRect(x: 240, y: 400, width: 80, height: 80))
        let out = try #require(transformer.transform(Self.photo, key: "k"))
        #expect(out.pixels.pixel(x: 260, y: 420) == Self.red)
        #expect(out.pixels.pixel(x: 239, y: 420) == Self.photo.pixels.pixel(x: 239, y: 420))
    }

    @Test func opacityMixesSourceOver() throws {
        let opaque = Image(pixels: TransformFixtures.pattern(width: 64, height: 48), hasAlpha: false)
        let out = try #require(
            WatermarkTransformer(watermark: Self.mark(10, 10), opacity: 0.5, position: .northWest).transform(opaque, key: "k"))
        #expect(!out.hasAlpha)
        let base = opaque.pixels.pixel(x: 3, y: 3)
        let got = out.pixels.pixel(x: 3, y: 3)
        #expect(abs(Int(got.r) - (255 + Int(base.r)) / 2) <= 1)
        #expect(abs(Int(got.g) - Int(base.g) / 2) <= 1)
        #expect(abs(Int(got.b) - Int(base.b) / 2) <= 1)
        #expect(got.a == 255)
        // Over a transparent pixel the watermark's own (halved) alpha shows.
        let clear = try #require(
            WatermarkTransformer(watermark: Self.mark(10, 10), opacity: 0.5, position: .northWest)
                .transform(Image(pixels: TransformFixtures.buffer(width: 20, height: 20) { _, _ in RGBA(r: 0, g: 0, b: 0, a: 0) }), key: "k"))
        #expect(clear.pixels.pixel(x: 3, y: 3) == RGBA(r: 255, g: 0, b: 0, a: 128))
        let none = try #require(WatermarkTransformer(watermark: Self.mark(10, 10), opacity: 0).transform(Self.photo, key: "k"))
        #expect(none.pixels.bytes == Self.photo.pixels.bytes)
    }

    @Test func aRealTransparentWatermarkLeavesTransparentPartsAlone() throws {
        // basn6a08: 32 × 32 RGBA whose alpha runs from 0 to 255.
        let mark = Image(pixels: try ReferencePNG.read(corpusPath: "pngsuite/basn6a08.png"))
        let transformer = WatermarkTransformer(watermark: mark, position: .northWest)
        let out = try #require(transformer.transform(Self.photo, key: "k"))
        for y in 0..<32 {
            for x in 0..<32 where mark.pixels.pixel(x: x, y: y).a == 0 {
                #expect(out.pixels.pixel(x: x, y: y) == Self.photo.pixels.pixel(x: x, y: y))
            }
            for x in 0..<32 where mark.pixels.pixel(x: x, y: y).a == 255 {
                let m = mark.pixels.pixel(x: x, y: y)
                #expect(out.pixels.pixel(x: x, y: y) == RGBA(r: m.r, g: m.g, b: m.b))
            }
        }
        #expect(out.pixels.pixel(x: 32, y: 0) == Self.photo.pixels.pixel(x: 32, y: 0))
    }

    @Test func tiledWithoutGapsCoversEverything() throws {
        let transformer = WatermarkTransformer(watermark: Self.mark(10, 10), position: .replicate)
        let tiling = try #require(transformer.tiling(on: Self.photo.pixelSize))
        // 32 columns of 10 px are made odd (33) and centred: the grid starts 5 px to the left.
        #expect(tiling == WatermarkTiling(first: PixelRect(x: -5, y: -5, width: 10, height: 10), stepX: 10, stepY: 10, columns: 33, rows: 49))
        let out = try #require(transformer.transform(Self.photo, key: "k"))
        #expect(out.pixels.bytes.enumerated().allSatisfy { $0.offset % 4 == 3 || $0.element == [255, 0, 0][$0.offset % 4] })
    }

    @Test func tiledWithGaps() throws {
        let transformer = WatermarkTransformer(watermark: Self.mark(10, 10), position: .replicate, xOffset: 10, yOffset: 10)
        let tiling = try #require(transformer.tiling(on: Self.photo.pixelSize))
        // Tiles 20 px: 16 → 17 columns, (340 − 320) / 2 = 10 left over, plus half the gap.
        #expect(tiling.first == PixelRect(x: -5, y: -5, width: 10, height: 10))
        #expect(tiling.columns == 17 && tiling.rows == 25 && tiling.stepX == 20)
        let out = try #require(transformer.transform(Self.photo, key: "k"))
        let p = Self.photo.pixels
        #expect(out.pixels.pixel(x: 2, y: 2) == Self.red)
        #expect(out.pixels.pixel(x: 10, y: 2) == p.pixel(x: 10, y: 2))
        #expect(out.pixels.pixel(x: 2, y: 10) == p.pixel(x: 2, y: 10))
        #expect(out.pixels.pixel(x: 20, y: 20) == Self.red)
        #expect(out.pixels.pixel(x: 315, y: 475) == Self.red)
        #expect(transformer.placement(on: Self.photo.pixelSize) == tiling.rect(column: 8, row: 12))
    }

    @Test func everyFrameOfAnAnimationGetsTheWatermark() throws {
        let animation = TransformFixtures.animation(width: 8, height: 6)
        let out = try #require(WatermarkTransformer(watermark: Self.mark(2, 2), position: .southEast).transform(animation, key: "k"))
        #expect(out.frames.count == 3 && out.loopCount == 3 && out.frames.map(\.duration) == [0.1, 0.2, 0.3])
        for (index, frame) in out.frames.enumerated() {
            #expect(frame.pixels.pixel(x: 6, y: 4) == Self.red && frame.pixels.pixel(x: 7, y: 5) == Self.red)
            #expect(frame.pixels.pixel(x: 5, y: 4) == animation.frames[index].pixels.pixel(x: 5, y: 4))
        }
        let tiled = try #require(WatermarkTransformer(watermark: Self.mark(2, 2), position: .replicate, xOffset: 2, yOffset: 2).transform(animation, key: "k"))
        #expect(tiled.frames.count == 3)
    }

    @Test func keysNameTheWatermarkAndEveryArgument() {
        let a = WatermarkTransformer(watermark: Self.mark(4, 4), opacity: 0.5, position: .southEast, xOffset: 10, yOffset: 0.1, scale: 0.25)
        let b = WatermarkTransformer(watermark: Self.mark(4, 4, RGBA(r: 0, g: 0, b: 255)), opacity: 0.5, position: .southEast, xOffset: 10, yOffset: 0.1, scale: 0.25)
        #expect(a.transformerKey.hasPrefix("WatermarkTransformer(mark="))
        #expect(a.transformerKey.hasSuffix(",opacity=0.5,position=soea,x=10,y=0.1,scale=0.25)"))
        #expect(a.transformerKey != b.transformerKey)
        #expect(a.transformerKey == WatermarkTransformer(watermark: Self.mark(4, 4), opacity: 0.5, position: .southEast, xOffset: 10, yOffset: 0.1, scale: 0.25).transformerKey)
        #expect(WatermarkTransformer(watermark: Self.mark(4, 4), scale: 1e300).transform(Self.photo, key: "k") == nil)
    }
}
