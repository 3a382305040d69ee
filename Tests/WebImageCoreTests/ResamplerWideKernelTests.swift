import Testing
import WebImageTesting
@testable import WebImageCore

/// The machine-width kernels (AVX2, AVX-512BW or NEON, ``WideKernels``) against the portable
/// fixed-point passes they stand in for, and the portable passes forced on a machine that has
/// wide ones.
@Suite("Resampler wide kernels")
struct ResamplerWideKernelTests {
    /// Random opaque noise with some structure (so kernels overshoot and clamp), `width`×`height`.
    static func randomOpaque(width: Int, height: Int, random: inout SeededRandom) -> PixelBuffer {
        let bytes = (0..<width * height * 4).map { i -> UInt8 in
            i % 4 == 3 ? 255 : (random.below(4) == 0 ? UInt8(random.below(2) * 255) : UInt8(random.below(256)))
        }
        return PixelBuffer(width: width, height: height, bytes: bytes)
    }

    @Test(
        "Given random opaque images and sizes, when resampled by each wide kernel set and by the portable passes, then the pixels are identical",
        .enabled(if: WideKernels.available, "this CPU has no AVX2 (or NEON), so only the portable passes run"),
        arguments: ResizeFilter.allCases, WideKernels.levels)
    func wideMatchesPortable(_ filter: ResizeFilter, level: Int32) {
        var random = SeededRandom(seed: 0x5EED_0000 &+ UInt64(ResizeFilter.allCases.firstIndex(of: filter)!))
        var wide = Resampler(filter: filter)
        wide.kernelLevel = level
        var portable = Resampler(filter: filter)
        portable.kernelLevel = 0
        // Shrinks (wide kernels, many 8-tap blocks), enlargements (few taps), widths below and
        // around 8 (the AVX2 tails), and the row's last pixels read through the tail copy.
        for _ in 0..<12 {
            let sw = 1 + random.below(300), sh = 1 + random.below(120)
            let input = Self.randomOpaque(width: sw, height: sh, random: &random)
            let dw = 1 + random.below(random.below(2) == 0 ? sw : 3 * sw)
            let dh = 1 + random.below(random.below(2) == 0 ? sh : 2 * sh)
            let size = PixelSize(width: dw, height: dh)
            let a = wide.resample(input, to: size), b = portable.resample(input, to: size)
            var differing = 0
            for (p, q) in zip(a.bytes, b.bytes) where p != q { differing += 1 }
            #expect(differing == 0, "\(WideKernels.name(level)) \(filter) \(sw)×\(sh) → \(dw)×\(dh): \(differing) bytes differ")
        }
        // A fractional region (the kernel's first input is not 0).
        let input = Self.randomOpaque(width: 257, height: 131, random: &random)
        let region = ResampleRegion(x: 13.25, y: 7.5, width: 200.5, height: 99)
        let size = PixelSize(width: 77, height: 41)
        #expect(
            wide.resample(input, to: size, region: region).bytes == portable.resample(input, to: size, region: region).bytes,
            "\(WideKernels.name(level)) \(filter) region")
    }

    @Test(
        "Given the portable passes forced, when opaque and partly transparent images are resampled, then they agree within 1 level of what is seen with the Float path and the wide kernels, exactly where opaque",
        arguments: [ResizeFilter.lanczos3, .bilinear])
    func portableForced(_ filter: ResizeFilter) {
        var portable = Resampler(filter: filter)
        portable.kernelLevel = 0
        var float = Resampler(filter: filter)
        float.usesFixedPoint = false
        let inputs = [
            ResamplerFastPathTests.image(width: 211, height: 97),
            ResamplerFastPathTests.image(width: 211, height: 97, transparent: 50..<97),
        ]
        for input in inputs {
            for size in [PixelSize(width: 64, height: 30), PixelSize(width: 300, height: 150), PixelSize(width: 9, height: 97)] {
                let p = portable.resample(input, to: size), f = float.resample(input, to: size)
                let w = Resampler(filter: filter).resample(input, to: size)
                // Within 1 where alpha is 128 or more, one level of premultiplied colour where
                // it is fainter (see `ResamplerPremultipliedTests.worstVisibleDifference`).
                let worst = ResamplerPremultipliedTests.worstVisibleDifference(p, f)
                #expect(worst <= 1, "\(filter) \(size): portable and Float differ by up to \(worst)")
                if input === inputs[0] {
                    #expect(p.bytes == w.bytes, "\(filter) \(size): portable and default (\(Resampler.vectorKernels)) differ")
                } else {
                    // Rows with transparency: the Float path here, the premultiplied fixed-point
                    // passes where the default set has them.
                    let apart = ResamplerPremultipliedTests.worstVisibleDifference(p, w)
                    #expect(apart <= 1, "\(filter) \(size): portable and default differ by up to \(apart)")
                }
            }
        }
    }
}
