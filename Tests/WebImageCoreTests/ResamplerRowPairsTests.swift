import CResampleKernels
import Testing
import WebImageTesting
@testable import WebImageCore

/// The AVX-512 VNNI set's opaque passes four source rows at a time into pair rows
/// (`wi_resample_horizontal_rows4`, `wi_resample_vertical_pairs`, used by
/// `Resampler.resampleOpaqueRowPairs`): the kernels against their portable C, and the
/// resampler's choice of which output rows take them against the portable passes.
@Suite("Resampler row pairs")
struct ResamplerRowPairsTests {
    /// A random Lanczos3 table from `width` pixels to between 1 and 3× as many outputs.
    static func table(width: Int, random: inout SeededRandom) -> KernelTable {
        let outputs = 1 + random.below(random.below(2) == 0 ? width : 3 * width)
        let start = random.below(3) == 0 ? Double(random.below(max(1, width / 4))) + 0.25 : 0
        return KernelTable(filter: .lanczos3, inSize: width, outSize: outputs, start: start, length: Double(width) - start)
    }

    @Test(
        "Given random opaque and translucent rows, table shapes and widths, when four rows are filtered by the AVX-512 VNNI kernel and by its portable C, then the pair rows and the opacity masks are identical",
        .enabled(if: WideKernels.level == 4, "this CPU has no AVX-512 VBMI + VNNI"))
    func horizontalMatchesPortable() {
        var random = SeededRandom(seed: 0x0F0B_0004)
        for _ in 0..<60 {
            let width = 1 + random.below(random.below(2) == 0 ? 40 : 700)
            let table = Self.table(width: width, random: &random)
            guard let kernel = FixedPointKernel(table, packed: true) else { continue }
            // Some rows with a translucent pixel, most opaque; hard jumps so the kernel overshoots.
            let rows = (0..<4).map { _ in
                (0..<width * 4).map { i -> UInt8 in
                    i % 4 == 3
                        ? (random.below(40) == 0 ? UInt8(random.below(255)) : 255)
                        : (random.below(4) == 0 ? UInt8(random.below(2) * 255) : UInt8(random.below(256)))
                }
            }
            let outputs = table.starts.count
            let scratchCount = kernel.plan.withUnsafeBufferPointer { wi_resample_rows4_scratch_count($0.baseAddress) }
            var results: [([Int16], [Int16], Int32)] = []
            for level in [Int32(4), 0] {
                var pairs0 = [Int16](repeating: 0x5A5A, count: outputs * 6), pairs1 = pairs0
                var scratch = [Int16](repeating: 0, count: scratchCount)
                let mask = rows[0].withUnsafeBufferPointer { r0 in
                    rows[1].withUnsafeBufferPointer { r1 in
                        rows[2].withUnsafeBufferPointer { r2 in
                            rows[3].withUnsafeBufferPointer { r3 in
                                let four: [UnsafePointer<UInt8>?] = [r0.baseAddress, r1.baseAddress, r2.baseAddress, r3.baseAddress]
                                return table.starts.withUnsafeBufferPointer { starts in
                                    table.counts.withUnsafeBufferPointer { counts in
                                        kernel.plan.withUnsafeBufferPointer { plan in
                                            kernel.packedTaps.withUnsafeBufferPointer { taps in
                                                wi_resample_horizontal_rows4(
                                                    level, four, width, outputs, starts.baseAddress, counts.baseAddress,
                                                    plan.baseAddress, taps.baseAddress, kernel.packedBlockStride,
                                                    Int32(kernel.precision - OpaqueRows.fraction), Int32(128 << OpaqueRows.fraction),
                                                    &scratch, &pairs0, &pairs1, four)
                                            }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
                results.append((pairs0, pairs1, mask))
            }
            #expect(results[0].0 == results[1].0, "\(width) → \(outputs): rows 0 and 1 differ")
            #expect(results[0].1 == results[1].1, "\(width) → \(outputs): rows 2 and 3 differ")
            #expect(results[0].2 == results[1].2, "\(width) → \(outputs): opacity \(results[0].2) against \(results[1].2)")
        }
    }

    @Test(
        "Given random pair rows and weights, when the vertical pass over pair rows runs on the AVX-512 VNNI kernel (one output row and two at once) and on its portable C, then the pixels are identical",
        .enabled(if: WideKernels.level == 4, "this CPU has no AVX-512 VBMI + VNNI"))
    func verticalMatchesPortable() {
        var random = SeededRandom(seed: 0x0F0B_0005)
        for _ in 0..<60 {
            let width = 1 + random.below(90), count = 1 + random.below(40)
            // Values as the horizontal pass leaves them, (v − 128) · 128 for v in −127…382.
            let pairs = (0..<count * width * 6).map { _ in Int16(random.below(65_280) - 32_640) }
            // Weights whose magnitudes add up to at most 2¹⁶ − 1, as `OpaqueRows` keeps them.
            let weights = (0..<count).map { _ in
                Int32(bitPattern: UInt32(random.below(1600)) | UInt32(UInt16(bitPattern: Int16(random.below(1600) - 400))) << 16)
            }
            var outputs: [[UInt8]] = []
            for level in [Int32(4), 0] {
                var out = [UInt8](repeating: 0, count: width * 4)
                pairs.withUnsafeBufferPointer { all in
                    // Pair row q at all[q * width * 6...], in reverse order (any rows will do).
                    let pointers = (0..<count).map { UnsafePointer<Int16>?(all.baseAddress! + (count - 1 - $0) * width * 6) }
                    wi_resample_vertical_pairs(level, pointers, weights, count, width, 14, &out)
                }
                outputs.append(out)
            }
            #expect(outputs[0] == outputs[1], "\(count) pair rows × \(width) pixels differ")
            // Two output rows at once: the first with these weights, the second with them reversed.
            let reversed = Array(weights.reversed())
            var second = [UInt8](repeating: 0, count: width * 4)
            pairs.withUnsafeBufferPointer { all in
                let pointers = (0..<count).map { UnsafePointer<Int16>?(all.baseAddress! + (count - 1 - $0) * width * 6) }
                wi_resample_vertical_pairs(0, pointers, reversed, count, width, 14, &second)
                var both = [UInt8](repeating: 0, count: width * 4), both1 = both
                wi_resample_vertical_pairs2(4, pointers, weights, reversed, count, width, 14, &both, &both1)
                #expect(both == outputs[1] && both1 == second, "two rows: \(count) pair rows × \(width) pixels differ")
            }
        }
    }

    @Test(
        "Given an opaque image with one translucent row, for each row, when resampled on the AVX-512 VNNI set and by the portable passes, then every output row above the first whose window holds that row is identical and the rest agree within 1 level of what is seen",
        .enabled(if: WideKernels.level == 4, "this CPU has no AVX-512 VBMI + VNNI"))
    func translucentRowAnywhere() {
        var random = SeededRandom(seed: 0x0F0B_0006)
        let width = 37, height = 23
        let opaque = ResamplerWideKernelTests.randomOpaque(width: width, height: height, random: &random)
        var wide = Resampler(filter: .lanczos3)
        wide.kernelLevel = 4
        var portable = Resampler(filter: .lanczos3)
        portable.kernelLevel = 0
        // Shrinks (windows of several pairs, odd and even starts), the same height, an enlargement.
        for outHeight in [3, 7, 10, 23, 50] {
            let size = PixelSize(width: 13, height: outHeight)
            let rows = KernelTable(filter: .lanczos3, inSize: height, outSize: outHeight, start: 0, length: Double(height))
            for translucent in 0..<height {
                var bytes = opaque.bytes
                for x in 0..<width { bytes[(translucent * width + x) * 4 + 3] = UInt8(x * 7 % 200) }
                let input = PixelBuffer(width: width, height: height, bytes: bytes)
                let a = wide.resample(input, to: size), b = portable.resample(input, to: size)
                let rowBytes = size.width * 4
                // The output rows above the first whose window holds that row take the opaque
                // passes in both (those from it on take the premultiplied ones, which differ by
                // kernel set within 1 level).
                let affected = (0..<outHeight).first { (rows.starts[$0]..<rows.starts[$0] + rows.counts[$0]).contains(translucent) }
                for y in 0..<(affected ?? outHeight) {
                    #expect(
                        a.bytes[y * rowBytes..<(y + 1) * rowBytes] == b.bytes[y * rowBytes..<(y + 1) * rowBytes],
                        "\(height) → \(outHeight), translucent row \(translucent): output row \(y) differs")
                }
                let worst = ResamplerPremultipliedTests.worstVisibleDifference(a, b)
                #expect(worst <= 1, "\(height) → \(outHeight), translucent row \(translucent): differs by up to \(worst)")
            }
        }
    }
}
