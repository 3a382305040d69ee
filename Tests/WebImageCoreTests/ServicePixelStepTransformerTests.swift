import Testing
import WebImageCore

@Suite("Extend, flatten, sharpen, trim and detail-centre transformers")
struct ServicePixelStepTransformerTests {
    @Test("Given a 2×2 image, when extended onto 5×4 at (2, 1), then it sits there and the rest is the fill")
    func extendPlacesTheFrame() throws {
        let red = RGBA(r: 255, g: 0, b: 0)
        let image = Image(pixels: TransformFixtures.buffer(width: 2, height: 2) { _, _ in red }, hasAlpha: false)
        let fill = RGBA(r: 0, g: 0, b: 255)
        let result = try #require(ExtendTransformer(size: PixelSize(width: 5, height: 4), x: 2, y: 1, fill: fill).transform(image, key: ""))
        #expect(result.pixelSize == PixelSize(width: 5, height: 4))
        #expect(result.pixels.pixel(x: 2, y: 1) == red && result.pixels.pixel(x: 3, y: 2) == red)
        #expect(result.pixels.pixel(x: 1, y: 1) == fill && result.pixels.pixel(x: 4, y: 3) == fill)
        #expect(!result.hasAlpha)
        let transparent = try #require(ExtendTransformer(size: PixelSize(width: 3, height: 3), x: 0, y: 0).transform(image, key: ""))
        #expect(transparent.hasAlpha && transparent.pixels.pixel(x: 2, y: 2).a == 0)
        #expect(ExtendTransformer(size: PixelSize(width: 3, height: 3), x: 2, y: 0).transform(image, key: "") == nil)
    }

    @Test("Given half-transparent pixels, when flattened on white, then they are blended and opaque")
    func flattenBlends() throws {
        let image = Image(pixels: TransformFixtures.buffer(width: 1, height: 1) { _, _ in RGBA(r: 0, g: 0, b: 0, a: 128) })
        let result = try #require(FlattenTransformer(background: RGBA(r: 255, g: 255, b: 255)).transform(image, key: ""))
        // (0·128 + 255·127 + 127) / 255 = 127
        #expect(result.pixels.pixel(x: 0, y: 0) == RGBA(r: 127, g: 127, b: 127, a: 255))
        #expect(!result.hasAlpha)
    }

    @Test("Given a flat image, when sharpened, then it is unchanged; given an edge, then the edge gains contrast")
    func sharpenMask() throws {
        let flat = Image(pixels: TransformFixtures.buffer(width: 8, height: 8) { _, _ in RGBA(r: 100, g: 100, b: 100) })
        let same = try #require(SharpenTransformer(sigma: 1).transform(flat, key: ""))
        #expect(same.pixels.bytes == flat.pixels.bytes)
        let edge = Image(pixels: TransformFixtures.buffer(width: 8, height: 8) { x, _ in x < 4 ? RGBA(r: 50, g: 50, b: 50) : RGBA(r: 200, g: 200, b: 200) })
        let sharp = try #require(SharpenTransformer(sigma: 1).transform(edge, key: ""))
        #expect(sharp.pixels.pixel(x: 3, y: 4).r < 50 && sharp.pixels.pixel(x: 4, y: 4).r > 200)
        #expect(sharp.pixels.pixel(x: 3, y: 4).a == 255)
    }

    @Test("Given a uniform border, when trimmed, then the box is the content; with equal cuts, the smaller cut on both sides")
    func trimBox() throws {
        let white = RGBA(r: 255, g: 255, b: 255)
        let pixels = TransformFixtures.buffer(width: 10, height: 8) { x, y in (2...5).contains(x) && (3...4).contains(y) ? RGBA(r: 0, g: 0, b: 0) : white }
        #expect(pixels.trimBox(threshold: 10) == PixelRect(x: 2, y: 3, width: 4, height: 2))
        #expect(pixels.trimBox(threshold: 10, background: white, equalHorizontal: true, equalVertical: true) == PixelRect(x: 2, y: 3, width: 6, height: 2))
        let trimmed = try #require(TrimTransformer(threshold: 10).transform(Image(pixels: pixels), key: ""))
        #expect(trimmed.pixelSize == PixelSize(width: 4, height: 2))
        let blank = Image(pixels: TransformFixtures.buffer(width: 4, height: 4) { _, _ in white })
        #expect(TrimTransformer(threshold: 0).transform(blank, key: "")?.pixelSize == PixelSize(width: 4, height: 4))
    }

    @Test("Given detail in one corner, when its centre is found, then it lies in that corner; a flat area gives its middle")
    func detailCenter() {
        let pixels = TransformFixtures.buffer(width: 64, height: 64) { x, y in
            x >= 48 && y >= 48 && (x + y) % 2 == 0 ? RGBA(r: 255, g: 255, b: 255) : RGBA(r: 0, g: 0, b: 0)
        }
        let center = pixels.detailCenter(in: PixelRect(x: 0, y: 0, width: 64, height: 64))
        #expect(center.x > 40 && center.y > 40)
        let flat = TransformFixtures.buffer(width: 10, height: 6) { _, _ in RGBA(r: 9, g: 9, b: 9) }
        let middle = flat.detailCenter(in: PixelRect(x: 0, y: 0, width: 10, height: 6))
        #expect(middle.x == 5 && middle.y == 3)
    }

    @Test("Given the new transformers, when keyed, then the keys name every parameter")
    func keys() {
        #expect(ExtendTransformer(size: PixelSize(width: 5, height: 4), x: 1, y: 2).transformerKey == "ExtendTransformer(size=5x4,at=1,2,fill=#00000000)")
        #expect(FlattenTransformer(background: RGBA(r: 255, g: 0, b: 0)).transformerKey == "FlattenTransformer(background=#ff0000ff)")
        #expect(SharpenTransformer(sigma: 1.5).transformerKey == "SharpenTransformer(sigma=1.5)")
        #expect(TrimTransformer(threshold: 10, equalHorizontal: true).transformerKey == "TrimTransformer(threshold=10.0,color=corner,equal=h)")
    }
}
