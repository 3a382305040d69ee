import Testing
import WebImageCore

@Suite("Transformer keys")
struct TransformerKeyTests {
    @Test("Given built-in transformers, when their keys are read, then they name every parameter")
    func keysNameParameters() {
        #expect(
            ResizeTransformer(size: PixelSize(width: 400, height: 300), mode: .aspectFit, filter: .lanczos3).transformerKey
                == "ResizeTransformer(size=(400,300),mode=aspectFit,filter=lanczos3)")
        #expect(CropTransformer(rect: PixelRect(x: 1, y: 2, width: 3, height: 4)).transformerKey == "CropTransformer(rect=(1,2,3,4))")
        #expect(RotateTransformer(angle: 30, fitSize: true).transformerKey == "RotateTransformer(angle=30,fitSize=true)")
        #expect(RotateTransformer(angle: 12.5, fitSize: false).transformerKey == "RotateTransformer(angle=12.5,fitSize=false)")
        #expect(FlipTransformer(horizontal: true).transformerKey == "FlipTransformer(horizontal=true,vertical=false)")
        #expect(
            TintTransformer(color: RGBA(r: 255, g: 0, b: 16, a: 128), blendMode: .multiply).transformerKey
                == "TintTransformer(color=#ff001080,blend=multiply)")
        #expect(BlurTransformer(radius: 4).transformerKey == "BlurTransformer(radius=4)")
        #expect(GrayscaleTransformer().transformerKey == "GrayscaleTransformer(luma=rec601)")
        #expect(
            RoundCornersTransformer(radius: 16, corners: [.topLeft], borderWidth: 2).transformerKey
                == "RoundCornersTransformer(radius=16,corners=1,border=2,borderColor=#000000ff)")
    }

    @Test("Given transformers differing in one parameter, when keyed, then all keys differ")
    func keysAreUnique() {
        let size = PixelSize(width: 10, height: 10)
        let transformers: [any ImageTransformer] = [
            ResizeTransformer(size: size, mode: .fill, filter: .lanczos3),
            ResizeTransformer(size: size, mode: .aspectFit, filter: .lanczos3),
            ResizeTransformer(size: size, mode: .aspectFill, filter: .lanczos3),
            ResizeTransformer(size: size, mode: .fill, filter: .mitchell),
            ResizeTransformer(size: PixelSize(width: 10, height: 11), mode: .fill, filter: .lanczos3),
            RotateTransformer(angle: 90, fitSize: true),
            RotateTransformer(angle: 90, fitSize: false),
            FlipTransformer(horizontal: true),
            FlipTransformer(vertical: true),
            TintTransformer(color: RGBA(r: 1, g: 2, b: 3), blendMode: .sourceAtop),
            TintTransformer(color: RGBA(r: 1, g: 2, b: 3), blendMode: .multiply),
            GrayscaleTransformer(coefficients: .rec601),
            GrayscaleTransformer(coefficients: .rec709),
            RoundCornersTransformer(radius: 4),
            RoundCornersTransformer(radius: 4, corners: [.topLeft]),
            RoundCornersTransformer(radius: 4, borderWidth: 1),
        ]
        let keys = transformers.map(\.transformerKey)
        #expect(Set(keys).count == keys.count)
    }

    @Test("Given a pipeline, when keyed, then its key joins the members' keys with '-' in order")
    func pipelineKey() {
        let a = FlipTransformer(horizontal: true)
        let b = BlurTransformer(radius: 2)
        let pipeline = PipelineTransformer([a, b])
        #expect(pipeline.transformerKey == a.transformerKey + "-" + b.transformerKey)
        #expect(PipelineTransformer([b, a]).transformerKey != pipeline.transformerKey)
    }

    @Test("Given a pipeline, when applied, then members run in order and a failing member fails it")
    func pipelineApplies() throws {
        let image = Image(pixels: TransformFixtures.pattern(width: 20, height: 10))
        let pipeline = PipelineTransformer([
            CropTransformer(rect: PixelRect(x: 0, y: 0, width: 10, height: 10)),
            ResizeTransformer(size: PixelSize(width: 4, height: 2)),
        ])
        let out = try #require(pipeline.transform(image, key: "k"))
        #expect(out.pixelSize == PixelSize(width: 4, height: 2))
        let failing = PipelineTransformer([CropTransformer(rect: PixelRect(x: 50, y: 50, width: 1, height: 1)), pipeline])
        #expect(failing.transform(image, key: "k") == nil)
    }
}
