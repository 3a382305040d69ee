import Testing
@testable import WebImageCore

/// The 16-bit pixel format in the image model (SPEC H-1): conversions, and the geometry
/// transformers giving in 16 bits what they give in 8.
@Suite("High bit depth: RGBA16 pixel buffers")
struct PixelFormatRGBA16Tests {
    /// A deterministic RGBA8 buffer with some transparency.
    static func eightBit(width: Int = 13, height: Int = 9) -> PixelBuffer {
        var random = SplitMix(seed: 7)
        return PixelBuffer.make(width: width, height: height) { out in
            for i in 0..<out.count { out[i] = i % 4 == 3 ? (i % 12 == 3 ? 128 : 255) : UInt8(truncatingIfNeeded: random.next()) }
        }
    }

    /// A 16-bit buffer whose samples use their low bytes.
    static func sixteenBit(width: Int = 13, height: Int = 9) -> PixelBuffer {
        var random = SplitMix(seed: 11)
        return PixelBuffer.make16(width: width, height: height) { out in
            for i in 0..<out.count { out[i] = i % 4 == 3 ? 65_535 : UInt16(truncatingIfNeeded: random.next()) }
        }
    }

    static func samples(_ p: PixelBuffer) -> [UInt16] { p.withSamples16 { Array($0) } }

    @Test("Given any 8-bit value, when widened and narrowed, then it is the same; 16-bit values round to nearest")
    func conversions() {
        let b = Self.eightBit()
        let wide = b.convertedToRGBA16()
        #expect(wide.format == .rgba16 && wide.byteCount == b.byteCount * 2)
        #expect(wide.convertedToRGBA8().bytes == b.bytes)
        #expect(b.convertedToRGBA8() === b)
        for v in [0, 128, 129, 32_767, 32_768, 65_407, 65_408, 65_535] {
            let exact = (Double(v) * 255 / 65_535).rounded()
            #expect(Double(PixelFormat.narrow(UInt16(v))) == exact, "\(v)")
        }
        #expect(PixelFormat.widen(1023, bits: 10) == 65_535)
        #expect(PixelFormat.widen(512, bits: 10) == UInt16((512.0 * 65_535 / 1023).rounded()))
        #expect(PixelFormat.widen(4095, bits: 12) == 65_535)
    }

    @Test("Given a 16-bit buffer, when cropped, flipped, turned or extended, then it is the 8-bit result in 16 bits", arguments: [false, true])
    func geometryMatchesEightBit(transparentFill: Bool) throws {
        let b = Self.eightBit()
        let image8 = Image(pixels: b)
        let image16 = Image(pixels: b.convertedToRGBA16())
        let fill = transparentFill ? RGBA(r: 0, g: 0, b: 0, a: 0) : RGBA(r: 10, g: 200, b: 30, a: 255)
        let steps: [any ImageTransformer] = [
            CropTransformer(rect: PixelRect(x: 2, y: 3, width: 7, height: 4)),
            FlipTransformer(horizontal: true), FlipTransformer(vertical: true),
            RotateTransformer(angle: 90), RotateTransformer(angle: 180), RotateTransformer(angle: 270),
            ExtendTransformer(size: PixelSize(width: 20, height: 15), x: 3, y: 4, fill: fill),
        ]
        for step in steps {
            let out8 = try #require(step.transform(image8, key: "k"))
            let out16 = try #require(step.transform(image16, key: "k"))
            #expect(out16.pixels.format == .rgba16, "\(step.transformerKey)")
            #expect(Self.samples(out16.pixels) == Self.samples(out8.pixels.convertedToRGBA16()), "\(step.transformerKey)")
        }
        for orientation in [ImageOrientation.left, .right, .leftMirrored, .rightMirrored, .upMirrored, .downMirrored] {
            let turned = b.convertedToRGBA16().applying(orientation)
            #expect(Self.samples(turned) == Self.samples(b.applying(orientation).convertedToRGBA16()))
        }
    }

    @Test("Given a 16-bit buffer, when resampled, then narrowed it is within one level of the 8-bit resample", arguments: [ResizeFilter.lanczos3, .bilinear, .box])
    func resampleMatchesEightBit(filter: ResizeFilter) {
        let b = Self.eightBit(width: 40, height: 30)
        for size in [PixelSize(width: 17, height: 11), PixelSize(width: 61, height: 47), PixelSize(width: 40, height: 13)] {
            let r8 = Resampler(filter: filter).resample(b, to: size)
            let r16 = Resampler(filter: filter).resample(b.convertedToRGBA16(), to: size)
            #expect(r16.format == .rgba16 && r16.width == size.width && r16.height == size.height)
            let narrowed = r16.convertedToRGBA8().bytes
            let worst = zip(narrowed, r8.bytes).map { abs(Int($0) - Int($1)) }.max() ?? 0
            #expect(worst <= 1, "\(filter) to \(size): off by \(worst)")
        }
    }

    @Test("Given a 16-bit ramp, when shrunk, then the result keeps values between 8-bit levels")
    func resampleKeepsPrecision() {
        let ramp = PixelBuffer.make16(width: 512, height: 2) { out in
            for i in 0..<out.count { out[i] = i % 4 == 3 ? 65_535 : UInt16((i / 4) % 512 * 128 + 7) }
        }
        let small = ramp.resized(to: PixelSize(width: 128, height: 1))
        #expect(small.withSamples16 { $0.filter { $0 % 257 != 0 }.count } > 300)
        let thumb = ramp.thumbnail(to: PixelSize(width: 64, height: 1))
        #expect(thumb.format == .rgba16)
        #expect(ramp.downscaled(to: PixelSize(width: 256, height: 1)).format == .rgba16)
    }

    @Test("Given a 16-bit image, when a value step runs, then it works on the 8-bit conversion")
    func valueStepsConvertFirst() throws {
        let image16 = Image(pixels: Self.sixteenBit())
        let image8 = image16.convertedToRGBA8()
        let steps: [any ImageTransformer] = [
            BlurTransformer(radius: 2), GrayscaleTransformer(), PixelateTransformer(blockSize: 3),
            RotateTransformer(angle: 30),
        ]
        for step in steps {
            let out16 = try #require(step.transform(image16, key: "k"))
            let out8 = try #require(step.transform(image8, key: "k"))
            #expect(out16.pixels.format == .rgba8, "\(step.transformerKey)")
            #expect(out16.pixels.bytes == out8.pixels.bytes, "\(step.transformerKey)")
        }
    }

    @Test("Given a 16-bit image, when a resize or extend would pass the pixel limit at 8 bytes a pixel, then it is refused")
    func transformLimitCountsEightBytes() {
        let side = Int(Double(maxTransformPixelCount).squareRoot() * 0.9)
        let size = PixelSize(width: side, height: side)
        let image16 = Image(pixels: PixelBuffer.make16(width: 2, height: 2) { $0.update(repeating: 1) })
        #expect(isAllowedOutput(width: side, height: side, format: .rgba8))
        #expect(!isAllowedOutput(width: side, height: side, format: .rgba16))
        #expect(ResizeTransformer(size: size).transform(image16, key: "k") == nil)
        #expect(ExtendTransformer(size: size, x: 0, y: 0).transform(image16, key: "k") == nil)
    }
}

/// A small deterministic generator for test pixels.
private struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
