import Testing
import WebImageTesting
import WebImageCore

@Suite("Transformer geometry")
struct TransformerGeometryTests {
    let image = Image(pixels: TransformFixtures.pattern(width: 40, height: 20))

    func size(_ t: any ImageTransformer, _ input: Image? = nil) -> PixelSize? {
        t.transform(input ?? image, key: "k")?.pixelSize
    }

    @Test("Given a 40×20 image, when resized in each mode to 10×10, then the output sizes follow the mode")
    func resizeModes() {
        let target = PixelSize(width: 10, height: 10)
        #expect(size(ResizeTransformer(size: target, mode: .fill)) == target)
        #expect(size(ResizeTransformer(size: target, mode: .aspectFit)) == PixelSize(width: 10, height: 5))
        #expect(size(ResizeTransformer(size: target, mode: .aspectFill)) == target)
        #expect(size(ResizeTransformer(size: PixelSize(width: 80, height: 80), mode: .aspectFit)) == PixelSize(width: 80, height: 40))
    }

    @Test("Given a left half red and right half blue, when aspect-filled to a square, then the centre is kept")
    func aspectFillCropsCentre() throws {
        // 30×10: left third red, middle third green, right third blue.
        let pixels = TransformFixtures.buffer(width: 30, height: 10) { x, _ in
            x < 10 ? RGBA(r: 255, g: 0, b: 0) : x < 20 ? RGBA(r: 0, g: 255, b: 0) : RGBA(r: 0, g: 0, b: 255)
        }
        let out = try #require(
            ResizeTransformer(size: PixelSize(width: 5, height: 5), mode: .aspectFill, filter: .box)
                .transform(Image(pixels: pixels), key: "k"))
        for x in 0..<5 { #expect(out.pixels.pixel(x: x, y: 2) == RGBA(r: 0, g: 255, b: 0)) }
    }

    @Test("Given invalid or huge resize targets, when transformed, then nil is returned")
    func resizeRejects() {
        #expect(size(ResizeTransformer(size: PixelSize(width: 0, height: 10))) == nil)
        #expect(size(ResizeTransformer(size: PixelSize(width: 100_000, height: 100_000))) == nil)
    }

    @Test("Given a crop rect partly outside, when cropped, then it is clipped to the image")
    func cropClips() throws {
        #expect(size(CropTransformer(rect: PixelRect(x: 30, y: 10, width: 50, height: 50))) == PixelSize(width: 10, height: 10))
        #expect(size(CropTransformer(rect: PixelRect(x: -5, y: -5, width: 10, height: 10))) == PixelSize(width: 5, height: 5))
        #expect(size(CropTransformer(rect: PixelRect(x: 40, y: 0, width: 5, height: 5))) == nil)
        #expect(size(CropTransformer(rect: PixelRect(x: Int.max, y: Int.max, width: Int.max, height: 1))) == nil)
        let out = try #require(CropTransformer(rect: PixelRect(x: 3, y: 4, width: 5, height: 6)).transform(image, key: "k"))
        for y in 0..<6 {
            for x in 0..<5 { #expect(out.pixels.pixel(x: x, y: y) == image.pixels.pixel(x: x + 3, y: y + 4)) }
        }
    }

    @Test("Given a 40×20 image, when rotated, then the canvas fits the turned image or keeps its size")
    func rotateSizes() {
        #expect(size(RotateTransformer(angle: 90)) == PixelSize(width: 20, height: 40))
        #expect(size(RotateTransformer(angle: -90)) == PixelSize(width: 20, height: 40))
        #expect(size(RotateTransformer(angle: 180)) == PixelSize(width: 40, height: 20))
        #expect(size(RotateTransformer(angle: 45)) == PixelSize(width: 43, height: 43))
        #expect(size(RotateTransformer(angle: 45, fitSize: false)) == PixelSize(width: 40, height: 20))
        #expect(size(RotateTransformer(angle: 90, fitSize: false)) == PixelSize(width: 40, height: 20))
        #expect(size(RotateTransformer(angle: .nan)) == nil)
    }

    @Test("Given a marked corner, when rotated 90° clockwise, then the top-left lands at the top-right")
    func rotateDirection() throws {
        let pixels = TransformFixtures.buffer(width: 4, height: 2) { x, y in
            x == 0 && y == 0 ? RGBA(r: 255, g: 0, b: 0) : RGBA(r: 0, g: 0, b: 0)
        }
        let out = try #require(RotateTransformer(angle: 90).transform(Image(pixels: pixels), key: "k"))
        #expect(out.pixels.pixel(x: 1, y: 0) == RGBA(r: 255, g: 0, b: 0))
    }

    @Test("Given a 45° rotation, when fitted, then the corners are transparent and the centre is opaque")
    func rotateTransparentBackground() throws {
        let out = try #require(RotateTransformer(angle: 45).transform(image, key: "k"))
        #expect(out.hasAlpha)
        #expect(out.pixels.pixel(x: 0, y: 0).a == 0)
        #expect(out.pixels.pixel(x: out.width - 1, y: out.height - 1).a == 0)
        #expect(out.pixels.pixel(x: out.width / 2, y: out.height / 2).a == 255)
    }

    @Test("Given a marked corner, when flipped, then it moves to the mirrored corner")
    func flipMoves() throws {
        let pixels = TransformFixtures.buffer(width: 3, height: 2) { x, y in
            x == 0 && y == 0 ? RGBA(r: 255, g: 0, b: 0) : RGBA(r: 0, g: 0, b: 0)
        }
        let input = Image(pixels: pixels)
        let h = try #require(FlipTransformer(horizontal: true).transform(input, key: "k"))
        #expect(h.pixels.pixel(x: 2, y: 0).r == 255)
        let v = try #require(FlipTransformer(vertical: true).transform(input, key: "k"))
        #expect(v.pixels.pixel(x: 0, y: 1).r == 255)
        let both = try #require(FlipTransformer(horizontal: true, vertical: true).transform(input, key: "k"))
        #expect(both.pixels.pixel(x: 2, y: 1).r == 255)
    }

    @Test("Given round corners, when applied, then corners are transparent, edges anti-aliased, centre unchanged")
    func roundCorners() throws {
        let input = Image(pixels: TransformFixtures.buffer(width: 40, height: 40) { _, _ in RGBA(r: 200, g: 100, b: 50) })
        let out = try #require(RoundCornersTransformer(radius: 10).transform(input, key: "k"))
        #expect(out.pixels.pixel(x: 0, y: 0).a == 0)
        #expect(out.pixels.pixel(x: 39, y: 39).a == 0)
        #expect(out.pixels.pixel(x: 20, y: 0) == RGBA(r: 200, g: 100, b: 50))
        #expect(out.pixels.pixel(x: 20, y: 20) == RGBA(r: 200, g: 100, b: 50))
        // Some pixel along the curve is partly covered, and keeps its colour (no dark fringe).
        let partial = (0..<100).map { out.pixels.pixel(x: $0 % 10, y: $0 / 10) }.filter { $0.a > 0 && $0.a < 255 }
        #expect(!partial.isEmpty)
        for p in partial { #expect(p.r >= 198 && p.g >= 98 && p.b >= 48 && p.r <= 202) }
        // Only the top-left corner.
        let one = try #require(RoundCornersTransformer(radius: 10, corners: [.topLeft]).transform(input, key: "k"))
        #expect(one.pixels.pixel(x: 0, y: 0).a == 0)
        #expect(one.pixels.pixel(x: 39, y: 0).a == 255)
    }

    @Test("Given a border, when corners are rounded, then edge pixels take the border colour")
    func roundCornersBorder() throws {
        let input = Image(pixels: TransformFixtures.buffer(width: 30, height: 30) { _, _ in RGBA(r: 255, g: 255, b: 255) })
        let out = try #require(
            RoundCornersTransformer(radius: 8, borderWidth: 2, borderColor: RGBA(r: 0, g: 0, b: 255)).transform(input, key: "k"))
        #expect(out.pixels.pixel(x: 15, y: 0) == RGBA(r: 0, g: 0, b: 255))
        #expect(out.pixels.pixel(x: 15, y: 1) == RGBA(r: 0, g: 0, b: 255))
        #expect(out.pixels.pixel(x: 15, y: 2) == RGBA(r: 255, g: 255, b: 255))
        #expect(out.pixels.pixel(x: 0, y: 15) == RGBA(r: 0, g: 0, b: 255))
    }

    @Test("Given tints, when applied, then source-atop replaces colour and multiply scales it, alpha kept")
    func tint() throws {
        let input = Image(pixels: TransformFixtures.buffer(width: 2, height: 1) { x, _ in
            RGBA(r: 200, g: 100, b: 50, a: x == 0 ? 255 : 0)
        })
        let atop = try #require(TintTransformer(color: RGBA(r: 0, g: 255, b: 0)).transform(input, key: "k"))
        #expect(atop.pixels.pixel(x: 0, y: 0) == RGBA(r: 0, g: 255, b: 0, a: 255))
        #expect(atop.pixels.pixel(x: 1, y: 0).a == 0)
        let half = try #require(TintTransformer(color: RGBA(r: 0, g: 0, b: 0, a: 128)).transform(input, key: "k"))
        #expect(half.pixels.pixel(x: 0, y: 0) == RGBA(r: 100, g: 50, b: 25, a: 255))
        let multiply = try #require(
            TintTransformer(color: RGBA(r: 255, g: 128, b: 0), blendMode: .multiply).transform(input, key: "k"))
        #expect(multiply.pixels.pixel(x: 0, y: 0) == RGBA(r: 200, g: 50, b: 0, a: 255))
    }

    @Test("Given coloured pixels, when made grayscale, then RGB equals the Rec. 601 (or 709) luma")
    func grayscale() throws {
        let input = Image(pixels: TransformFixtures.buffer(width: 1, height: 1) { _, _ in RGBA(r: 255, g: 0, b: 0, a: 77) })
        let out = try #require(GrayscaleTransformer().transform(input, key: "k"))
        #expect(out.pixels.pixel(x: 0, y: 0) == RGBA(r: 76, g: 76, b: 76, a: 77))
        let hd = try #require(GrayscaleTransformer(coefficients: .rec709).transform(input, key: "k"))
        #expect(hd.pixels.pixel(x: 0, y: 0) == RGBA(r: 54, g: 54, b: 54, a: 77))
    }

    @Test("Given a single white dot, when blurred, then energy spreads symmetrically and colour stays white")
    func blurSpreads() throws {
        let input = Image(pixels: TransformFixtures.buffer(width: 21, height: 21) { x, y in
            x == 10 && y == 10 ? RGBA(r: 255, g: 255, b: 255) : RGBA(r: 0, g: 0, b: 0, a: 0)
        })
        let out = try #require(BlurTransformer(radius: 2).transform(input, key: "k"))
        let centre = out.pixels.pixel(x: 10, y: 10)
        #expect(centre.a > 0 && centre.a < 255)
        #expect(out.pixels.pixel(x: 8, y: 10).a == out.pixels.pixel(x: 12, y: 10).a)
        #expect(out.pixels.pixel(x: 10, y: 8).a == out.pixels.pixel(x: 10, y: 12).a)
        #expect(out.pixels.pixel(x: 0, y: 0).a == 0)
        // Premultiplied: the spread-out pixels stay white, not grey.
        let near = out.pixels.pixel(x: 11, y: 10)
        #expect(near.a > 0 && near.r >= 250 && near.g >= 250 && near.b >= 250)
        #expect(BlurTransformer(radius: -1).transform(input, key: "k") == nil)
    }

    @Test("Given a flat colour, when blurred, then it is unchanged (edges repeat)")
    func blurFlat() throws {
        let input = Image(pixels: TransformFixtures.buffer(width: 9, height: 5) { _, _ in RGBA(r: 10, g: 120, b: 230) })
        let out = try #require(BlurTransformer(radius: 3).transform(input, key: "k"))
        #expect(out.pixels.bytes == input.pixels.bytes)
    }
}

@Suite("Large-radius blur")
struct TransformBlurApproximationTests {
    @Test("Given a large σ, when blurred with three box passes, then the result is close to the exact Gaussian")
    func boxPassesApproximateGaussian() throws {
        let input = Image(pixels: TransformFixtures.buffer(width: 120, height: 90) { x, y in
            // Hard edges and a transparent hole: the hardest case for an approximation.
            let inHole = (40..<70).contains(x) && (30..<50).contains(y)
            return inHole ? RGBA(r: 0, g: 0, b: 0, a: 0)
                : RGBA(r: x < 60 ? 250 : 10, g: UInt8(y * 2), b: (x / 10 + y / 10) % 2 == 0 ? 0 : 255)
        })
        let sigma = BlurTransformer.exactKernelLimit + 2
        let approximate = try #require(BlurTransformer(radius: sigma).transform(input, key: "k"))
        let exact = input.pixels.blurredExactly(sigma: sigma)
        let diff = try #require(PixelDifference.between(approximate.pixels, exact))
        #expect(diff.psnr >= 35, "\(diff)")
        // Flat stays flat.
        let flat = Image(pixels: TransformFixtures.buffer(width: 50, height: 40) { _, _ in RGBA(r: 9, g: 99, b: 199, a: 111) })
        let out = try #require(BlurTransformer(radius: 30).transform(flat, key: "k"))
        #expect(out.pixels.bytes == flat.pixels.bytes)
    }
}
