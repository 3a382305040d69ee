import Testing
import WebImageTesting
@testable import WebImageCore

/// The integer horizontal pass for rows with transparency (``PremultipliedKernel``) against the
/// `Float` path it stands in for, and its wide kernel sets against its portable C.
@Suite("Resampler premultiplied pass")
struct ResamplerPremultipliedTests {
    /// Random pixels with alpha anywhere in 0…255, a third of them nearly transparent (alpha
    /// below 8, where a colour error is magnified most by the division), some fully opaque or
    /// fully transparent, and colours with hard jumps (so kernels overshoot).
    static func randomTransparent(width: Int, height: Int, random: inout SeededRandom) -> PixelBuffer {
        var bytes = [UInt8](repeating: 0, count: width * height * 4)
        for p in 0..<width * height {
            for c in 0..<3 { bytes[p * 4 + c] = random.below(3) == 0 ? UInt8(random.below(2) * 255) : UInt8(random.below(256)) }
            bytes[p * 4 + 3] =
                switch random.below(6) {
                case 0, 1: UInt8(random.below(8))
                case 2: 255
                case 3: 0
                default: UInt8(random.below(256))
                }
        }
        return PixelBuffer(width: width, height: height, bytes: bytes)
    }

    /// The largest difference between two RGBA8 results of the same size, in levels of what is
    /// seen: alpha as is; a colour channel's difference `d` as `d · min(a₁, a₂) / 255` (its
    /// premultiplied difference) when `d` exceeds 1. So pixels with alpha of 128 or more must
    /// agree within 1 in every channel, and fainter ones within one level of premultiplied
    /// colour: there the division by alpha magnifies the weights' rounding (to `2^-15`) as
    /// much as it does any rounding (Pillow's and libvips' 8-bit premultiplied values, more).
    static func worstVisibleDifference(_ a: PixelBuffer, _ b: PixelBuffer) -> Double {
        var worst = 0.0
        for p in stride(from: 0, to: min(a.bytes.count, b.bytes.count), by: 4) {
            let coverage = Double(min(a.bytes[p + 3], b.bytes[p + 3])) / 255
            for c in 0..<4 {
                let d = Double(abs(Int(a.bytes[p + c]) - Int(b.bytes[p + c])))
                worst = max(worst, c == 3 || d <= 1 ? d : d * coverage)
            }
        }
        return worst
    }

    @Test(
        "Given random images with transparency, when resampled with the integer premultiplied pass and with the Float path, then every channel agrees within 1 level of what is seen",
        arguments: ResizeFilter.allCases)
    func agreesWithFloat(_ filter: ResizeFilter) {
        var random = SeededRandom(seed: 0xA1FA_0000 &+ UInt64(ResizeFilter.allCases.firstIndex(of: filter)!))
        let fast = Resampler(filter: filter)
        var float = Resampler(filter: filter)
        float.usesFixedPoint = false
        for _ in 0..<10 {
            let sw = 1 + random.below(400), sh = 1 + random.below(60)
            let input = Self.randomTransparent(width: sw, height: sh, random: &random)
            let size = PixelSize(
                width: 1 + random.below(random.below(2) == 0 ? sw : 3 * sw), height: 1 + random.below(random.below(2) == 0 ? sh : 2 * sh))
            let a = fast.resample(input, to: size), b = float.resample(input, to: size)
            let worst = Self.worstVisibleDifference(a, b)
            #expect(worst <= 1, "\(filter) \(sw)×\(sh) → \(size.width)×\(size.height): differs by up to \(worst)")
        }
    }

    @Test(
        "Given random images with transparency, when resampled by each wide kernel set and by the portable C pass, then the pixels are identical",
        .enabled(if: WideKernels.levels.contains(where: WideKernels.hasPremultiplied), "no kernel set here has the premultiplied passes"),
        arguments: [ResizeFilter.lanczos3, .bilinear, .box], WideKernels.levels.filter(WideKernels.hasPremultiplied))
    func wideMatchesPortable(_ filter: ResizeFilter, level: Int32) {
        var random = SeededRandom(seed: 0xA1FA_1000 &+ UInt64(level))
        var wide = Resampler(filter: filter)
        wide.kernelLevel = level
        var portable = Resampler(filter: filter)
        portable.kernelLevel = 0
        portable.premultipliedPortable = true
        for _ in 0..<10 {
            // Widths around the four-pixel steps of the premultiplying load and the 8-tap blocks.
            let sw = 1 + random.below(random.below(2) == 0 ? 20 : 500), sh = 1 + random.below(50)
            let input = Self.randomTransparent(width: sw, height: sh, random: &random)
            let size = PixelSize(width: 1 + random.below(2 * sw), height: 1 + random.below(sh))
            #expect(
                wide.resample(input, to: size).bytes == portable.resample(input, to: size).bytes,
                "\(WideKernels.name(level)) \(filter) \(sw)×\(sh) → \(size.width)×\(size.height)")
        }
        // A fractional region whose first input is odd (the pairs start one pixel early).
        let input = Self.randomTransparent(width: 301, height: 40, random: &random)
        let region = ResampleRegion(x: 17.5, y: 3, width: 250.25, height: 30)
        let size = PixelSize(width: 61, height: 11)
        #expect(
            wide.resample(input, to: size, region: region).bytes == portable.resample(input, to: size, region: region).bytes,
            "\(WideKernels.name(level)) \(filter) region")
    }

    @Test("Given a partly transparent image, when resampled with the premultiplied passes' portable C, then it agrees with the Float path within 1 level of what is seen")
    func portableAgreesWithFloat() {
        var random = SeededRandom(seed: 0xA1FA_2000)
        var portable = Resampler(filter: .lanczos3)
        portable.kernelLevel = 0
        portable.premultipliedPortable = true
        var float = Resampler(filter: .lanczos3)
        float.usesFixedPoint = false
        let input = Self.randomTransparent(width: 150, height: 40, random: &random)
        for size in [PixelSize(width: 41, height: 13), PixelSize(width: 260, height: 70)] {
            let worst = Self.worstVisibleDifference(portable.resample(input, to: size), float.resample(input, to: size))
            #expect(worst <= 1, "\(size): differs by up to \(worst)")
        }
    }

    @Test("Given a flat translucent colour, when resampled, then it stays exactly that colour", arguments: ResizeFilter.allCases)
    func flatStaysFlat(_ filter: ResizeFilter) {
        for colour: [UInt8] in [[200, 100, 50, 128], [255, 0, 255, 1], [13, 250, 7, 254]] {
            let input = PixelBuffer(width: 97, height: 23, bytes: Array([[UInt8]](repeating: colour, count: 97 * 23).joined()))
            for size in [PixelSize(width: 20, height: 5), PixelSize(width: 150, height: 40)] {
                let out = Resampler(filter: filter).resample(input, to: size)
                #expect(out.bytes == Array([[UInt8]](repeating: colour, count: size.width * size.height).joined()), "\(filter) \(colour) \(size)")
            }
        }
    }
}
