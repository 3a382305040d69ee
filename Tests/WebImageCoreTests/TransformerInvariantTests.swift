import Testing
import WebImageCore
import WebImageTesting

@Suite("Transformer invariants")
struct TransformerInvariantTests {
    static let all: [any ImageTransformer] = [
        ResizeTransformer(size: PixelSize(width: 7, height: 5), mode: .fill, filter: .lanczos3),
        ResizeTransformer(size: PixelSize(width: 7, height: 5), mode: .aspectFit, filter: .mitchell),
        ResizeTransformer(size: PixelSize(width: 7, height: 5), mode: .aspectFill, filter: .catmullRom),
        ResizeTransformer(size: PixelSize(width: 30, height: 20), mode: .fill, filter: .bilinear),
        ResizeTransformer(size: PixelSize(width: 3, height: 3), mode: .fill, filter: .box),
        CropTransformer(rect: PixelRect(x: 1, y: 1, width: 4, height: 3)),
        RoundCornersTransformer(radius: 3, borderWidth: 1),
        RotateTransformer(angle: 33),
        RotateTransformer(angle: 90),
        FlipTransformer(horizontal: true),
        TintTransformer(color: RGBA(r: 0, g: 255, b: 0, a: 100)),
        BlurTransformer(radius: 1.5),
        GrayscaleTransformer(),
    ]

    static var keys: [String] { all.map(\.transformerKey) }
    static func named(_ key: String) -> any ImageTransformer {
        all.first { $0.transformerKey == key } ?? GrayscaleTransformer()
    }

    @Test("Given an animated image, when transformed, then frame count, durations and loop count are kept", arguments: keys)
    func animatedKeepsTiming(_ key: String) throws {
        let input = TransformFixtures.animation()
        let out = try #require(Self.named(key).transform(input, key: "k"))
        #expect(out.frames.count == 3)
        #expect(out.frames.map(\.duration) == [0.1, 0.2, 0.3])
        #expect(out.loopCount == 3)
        #expect(out.format == .gif)
        // Each frame was transformed (frames differ from each other like the inputs do).
        #expect(out.frames[0].pixels.bytes != out.frames[1].pixels.bytes)
    }

    @Test("Given any transformer, when applied, then the input pixels are not modified", arguments: keys)
    func inputUntouched(_ key: String) throws {
        let input = TransformFixtures.animation()
        let before = input.frames.map(\.pixels.bytes)
        _ = Self.named(key).transform(input, key: "k")
        #expect(input.frames.map(\.pixels.bytes) == before)
        #expect(input.pixelSize == PixelSize(width: 8, height: 6))
    }

    @Test("Given 1×1 and 10000×1 inputs, when transformed, then each succeeds or declines without crashing", arguments: keys)
    func degenerateInputs(_ key: String) {
        let t = Self.named(key)
        for (w, h) in [(1, 1), (10000, 1), (1, 300)] {
            let input = Image(pixels: TransformFixtures.pattern(width: w, height: h))
            if let out = t.transform(input, key: "k") {
                #expect(out.width >= 1 && out.height >= 1)
            }
        }
    }

    @Test("Given identity parameters, when transformed, then the pixels are identical")
    func identities() throws {
        let input = Image(pixels: TransformFixtures.pattern(width: 13, height: 7))
        let same = try #require(ResizeTransformer(size: PixelSize(width: 13, height: 7)).transform(input, key: "k"))
        #expect(same.pixels.bytes == input.pixels.bytes)
        let full = try #require(CropTransformer(rect: PixelRect(x: 0, y: 0, width: 13, height: 7)).transform(input, key: "k"))
        #expect(full.pixels.bytes == input.pixels.bytes)
        let zero = try #require(RotateTransformer(angle: 0).transform(input, key: "k"))
        #expect(zero.pixels.bytes == input.pixels.bytes)
        let full360 = try #require(RotateTransformer(angle: 360, fitSize: false).transform(input, key: "k"))
        #expect(full360.pixels.bytes == input.pixels.bytes)
        for flip in [FlipTransformer(horizontal: true), FlipTransformer(vertical: true), FlipTransformer(horizontal: true, vertical: true)] {
            let once = try #require(flip.transform(input, key: "k"))
            #expect(once.pixels.bytes != input.pixels.bytes)
            let twice = try #require(flip.transform(once, key: "k"))
            #expect(twice.pixels.bytes == input.pixels.bytes)
        }
        var turned = input
        for _ in 0..<4 { turned = try #require(RotateTransformer(angle: 90).transform(turned, key: "k")) }
        #expect(turned.pixels.bytes == input.pixels.bytes)
    }

    @Test("Given red on transparent, when resized with every filter, then visible edge pixels stay pure red", arguments: ResizeFilter.allCases)
    func noDarkFringe(_ filter: ResizeFilter) throws {
        // A red disc on fully transparent black.
        let input = TransformFixtures.buffer(width: 64, height: 64) { x, y in
            let dx = Double(x) - 31.5
            let dy = Double(y) - 31.5
            return dx * dx + dy * dy < 400 ? RGBA(r: 255, g: 0, b: 0) : RGBA(r: 0, g: 0, b: 0, a: 0)
        }
        var edges = 0
        for size in [PixelSize(width: 17, height: 23), PixelSize(width: 150, height: 100)] {
            let out = input.resized(to: size, filter: filter)
            for y in 0..<out.height {
                for x in 0..<out.width {
                    let p = out.pixel(x: x, y: y)
                    guard p.a > 0 else { continue }
                    if p.a < 255 { edges += 1 }
                    #expect(p.r >= 250 && p.g <= 5 && p.b <= 5, "\(filter) \(size) at \(x),\(y): \(p)")
                }
            }
        }
        // Nearest neighbour never blends, so it makes no partly transparent edge.
        #expect(filter == .nearest ? edges == 0 : edges > 0)
    }

    @Test("Given the corpus alpha regression image, when halved, then no visible pixel turns darker than Pillow's",
          .enabled(if: Corpus.isAvailable))
    func corpusAlphaRegression() throws {
        let input = try ReferencePNG.read(Corpus.url("transformer-regressions/resize-with-alpha-original.png"))
        let expected = try ReferencePNG.read(Corpus.url("transformer-regressions/resize-with-alpha-original-half-size.png"))
        let out = input.resized(to: PixelSize(width: expected.width, height: expected.height), filter: .lanczos3)
        // Straight-alpha filtering pulls in the black of transparent pixels: partly transparent
        // edge pixels would come out much darker than their opaque neighbours.
        var checked = 0
        for y in 0..<out.height {
            for x in 0..<out.width {
                let p = out.pixel(x: x, y: y)
                let e = expected.pixel(x: x, y: y)
                guard p.a > 16, p.a < 255, e.a > 16 else { continue }
                checked += 1
                let ours = Int(p.r) + Int(p.g) + Int(p.b)
                let theirs = Int(e.r) + Int(e.g) + Int(e.b)
                #expect(ours >= theirs - 96, "at \(x),\(y): \(p) vs \(e)")
            }
        }
        #expect(checked > 0)
    }
}

@Suite("Transforming frames")
struct TransformFrameMappingTests {
    @Test("Given frames sharing one buffer, when transformed, then it is transformed once and stays shared")
    func sharedBuffersStayShared() throws {
        let shared = TransformFixtures.pattern(width: 6, height: 4)
        let other = TransformFixtures.pattern(width: 6, height: 4, seed: 2)
        let input = Image(
            frames: [ImageFrame(pixels: shared, duration: 0.1), ImageFrame(pixels: other, duration: 0.1), ImageFrame(pixels: shared, duration: 0.5)],
            loopCount: 2)
        var calls = 0
        let out = try #require(input.mappingFrames { pixels -> PixelBuffer? in
            calls += 1
            return pixels.resized(to: PixelSize(width: 3, height: 2))
        })
        #expect(calls == 2)
        #expect(out.frames[0].pixels === out.frames[2].pixels)
        #expect(out.cost == 2 * 3 * 2 * 4)
        #expect(out.frames.map(\.duration) == [0.1, 0.1, 0.5])
    }
}
