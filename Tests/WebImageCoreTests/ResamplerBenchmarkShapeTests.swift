import Testing
import WebImageTesting
@testable import WebImageCore

/// The resize benchmark's two Lanczos3 shrinks (`make bench-resize`: 4000×3000 → 400×300, 10×,
/// and 1732×1155 → 512×341, about 3.4×) at smaller sizes with the same factors, so with the
/// same kernel widths: every wide kernel set (``WideKernels/levels``) against the portable passes,
/// on an opaque image ("RGB") and on one with transparency below an opaque top ("RGBA").
@Suite("Resampler benchmark shapes")
struct ResamplerBenchmarkShapeTests {
    /// Source and output sizes: 10× in both directions, and 1732 / 512 across.
    static let shapes = [
        (PixelSize(width: 800, height: 240), PixelSize(width: 80, height: 24)),
        (PixelSize(width: 866, height: 578), PixelSize(width: 256, height: 171)),
    ]

    /// Opaque noise with hard jumps (so the kernels overshoot and clamp); with `transparentFrom`,
    /// rows from there on get alpha falling off towards the sides and bottom, some of it zero.
    static func image(_ size: PixelSize, transparentFrom: Int? = nil, seed: UInt64) -> PixelBuffer {
        var random = SeededRandom(seed: seed)
        var bytes = ResamplerWideKernelTests.randomOpaque(width: size.width, height: size.height, random: &random).bytes
        if let top = transparentFrom {
            for y in top..<size.height {
                for x in 0..<size.width {
                    let dx = abs(2 * x - size.width) * 255 / size.width, dy = (y - top) * 255 / max(1, size.height - top)
                    bytes[(y * size.width + x) * 4 + 3] = UInt8(max(0, min(255, 400 - 2 * max(dx, dy))))
                }
            }
        }
        return PixelBuffer(width: size.width, height: size.height, bytes: bytes)
    }

    @Test(
        "Given the benchmark's shrink factors on an opaque image, when resampled by each wide kernel set and by the portable passes, then the pixels are identical",
        .enabled(if: WideKernels.available, "this CPU has no AVX2 (or NEON), so only the portable passes run"),
        arguments: WideKernels.levels)
    func opaqueMatchesPortable(level: Int32) {
        var wide = Resampler(filter: .lanczos3)
        wide.kernelLevel = level
        var portable = Resampler(filter: .lanczos3)
        portable.kernelLevel = 0
        for (index, (source, output)) in Self.shapes.enumerated() {
            let input = Self.image(source, seed: 0xBE7C_0000 &+ UInt64(index))
            let a = wide.resample(input, to: output), b = portable.resample(input, to: output)
            var differing = 0
            for (p, q) in zip(a.bytes, b.bytes) where p != q { differing += 1 }
            #expect(differing == 0, "\(WideKernels.name(level)) \(source) → \(output): \(differing) bytes differ")
        }
    }

    @Test(
        "Given the benchmark's shrink factors on an image with transparency below an opaque top, when resampled by each wide kernel set and by the portable passes, then the rows made of opaque rows are identical and the rest agree within 1 level of what is seen",
        .enabled(if: WideKernels.available, "this CPU has no AVX2 (or NEON), so only the portable passes run"),
        arguments: WideKernels.levels)
    func transparentMatchesPortable(level: Int32) {
        var wide = Resampler(filter: .lanczos3)
        wide.kernelLevel = level
        var portable = Resampler(filter: .lanczos3)
        portable.kernelLevel = 0
        for (index, (source, output)) in Self.shapes.enumerated() {
            let top = source.height / 2
            let input = Self.image(source, transparentFrom: top, seed: 0xA1FA_BE70 &+ UInt64(index))
            let a = wide.resample(input, to: output), b = portable.resample(input, to: output)
            // Output rows whose kernels read opaque source rows only take the opaque passes in both.
            let rows = KernelTable(filter: .lanczos3, inSize: source.height, outSize: output.height, start: 0, length: Double(source.height))
            let opaqueRows = (0..<output.height).filter { rows.starts[$0] + rows.counts[$0] <= top }
            #expect(!opaqueRows.isEmpty, "\(source) → \(output): no output row is made of opaque rows only")
            let rowBytes = output.width * 4
            for y in opaqueRows {
                #expect(
                    a.bytes[y * rowBytes..<(y + 1) * rowBytes] == b.bytes[y * rowBytes..<(y + 1) * rowBytes],
                    "\(WideKernels.name(level)) \(source) → \(output): opaque output row \(y) differs")
            }
            let worst = ResamplerPremultipliedTests.worstVisibleDifference(a, b)
            #expect(worst <= 1, "\(WideKernels.name(level)) \(source) → \(output): differs by up to \(worst)")
        }
    }
}
