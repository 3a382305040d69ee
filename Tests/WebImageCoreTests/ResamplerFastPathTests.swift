import Testing
@testable import WebImageCore

/// The resampler's fast paths against the plain computations they replace: the 16-bit
/// fixed-point horizontal pass for opaque rows, and the Lanczos3 sines by recurrence.
@Suite("Resampler fast paths")
struct ResamplerFastPathTests {
    /// Photo-like content: gradients, a hard edge and deterministic noise, so every kernel
    /// overshoots somewhere. Rows in `transparent` get varying alpha (some 0, some 255), so
    /// they take the `Float` pass while the others take the fixed-point ones.
    static func image(width: Int, height: Int, transparent: Range<Int>? = nil) -> PixelBuffer {
        var state: UInt32 = 12345
        return TransformFixtures.buffer(width: width, height: height) { x, y in
            state = state &* 1_664_525 &+ 1_013_904_223
            let noise = Int(state >> 24) - 128
            let edge = x > width / 2 ? 200 : 20
            func clamp(_ v: Int) -> UInt8 { UInt8(max(0, min(255, v))) }
            let alpha: UInt8 = transparent.map { $0.contains(y) ? UInt8((x * 37 + y * 11) % 256) : 255 } ?? 255
            return RGBA(
                r: clamp(x * 255 / width + noise / 4), g: clamp(edge + noise / 8), b: clamp(y * 255 / height - noise / 2),
                a: alpha)
        }
    }

    static let sizes = [
        PixelSize(width: 86, height: 58), PixelSize(width: 61, height: 40), PixelSize(width: 200, height: 150),
        PixelSize(width: 17, height: 89),
    ]

    @Test("Given opaque and partly transparent images, when resampled with and without the fixed-point passes, then every channel agrees within 1 level of what is seen", arguments: ResizeFilter.allCases)
    func agreesWithFloat(_ filter: ResizeFilter) {
        let fast = Resampler(filter: filter)
        var general = Resampler(filter: filter)
        general.usesFixedPoint = false
        // All opaque: both passes in fixed point (`OpaqueRows`). Transparent at the bottom:
        // both passes down to the first output row that reads a transparent row, then the
        // general path. Transparent at the top: the fixed-point horizontal pass for opaque
        // rows only.
        let inputs = [
            Self.image(width: 131, height: 89), Self.image(width: 131, height: 89, transparent: 60..<89),
            Self.image(width: 131, height: 89, transparent: 0..<20),
        ]
        for input in inputs {
            for size in Self.sizes {
                // The fixed-point pass exists for this size (else the comparison proves nothing).
                let table = KernelTable(filter: filter, inSize: 131, outSize: size.width, start: 0, length: 131)
                #expect(FixedPointKernel(table) != nil)
                let a = fast.resample(input, to: size), b = general.resample(input, to: size)
                // Opaque pixels within 1 in every channel; faint ones within one level of
                // premultiplied colour (see `ResamplerPremultipliedTests.worstVisibleDifference`).
                let worst = ResamplerPremultipliedTests.worstVisibleDifference(a, b)
                #expect(worst <= 1, "\(filter) \(size): channels differ by up to \(worst)")
            }
        }
    }

    @Test("Given any filter and scale, when the weights are made fixed-point, then each output's weights add up to exactly one", arguments: ResizeFilter.allCases)
    func weightsSumToOne(_ filter: ResizeFilter) throws {
        for (inSize, outSize) in [(1020, 512), (131, 200), (4000, 400), (97, 31)] {
            let table = KernelTable(filter: filter, inSize: inSize, outSize: outSize, start: 0, length: Double(inSize))
            let fixed = try #require(FixedPointKernel(table))
            let one = Int((1 / fixed.scale).rounded())
            // Walk the layout: groups of four outputs, then single outputs.
            var next = 0, output = 0
            for steps in fixed.steps {
                let width = output + 4 <= outSize ? 4 : 1
                for o in 0..<width {
                    var sum = 0
                    for t in 0..<steps {
                        let w = fixed.weights[next + t * width + o]
                        sum += Int(w[0]) + Int(w[1])
                    }
                    #expect(sum == one, "\(filter) \(inSize)→\(outSize) output \(output + o)")
                }
                next += steps * width
                output += width
            }
            #expect(output == outSize)
            // The vertical weights (`OpaqueRows`), one output row after another.
            let rows = try #require(OpaqueRows(table))
            for row in 0..<outSize {
                var sum = 0
                for t in 0..<rows.pairStride {
                    let w = rows.weights[row * rows.pairStride + t]
                    sum += Int(w[0]) + Int(w[1])
                }
                #expect(sum == 1 << rows.precision, "\(filter) \(inSize)→\(outSize) row \(row)")
            }
        }
    }

    @Test("Given evenly spaced positions, when Lanczos3 takes its sines by recurrence, then it matches the direct kernel")
    func lanczosRecurrence() {
        for (first, step) in [(-5.7, 0.5), (-2.99, 0.1), (-3.4, 1.0), (-0.25, 0.003)] {
            let steps = Lanczos3Sines.Steps(step: step)
            var sines = Lanczos3Sines(at: first, next: first + step, steps: steps)
            var worst = 0.0
            for n in 0..<16 {
                let x = first + Double(n) * step
                worst = max(worst, abs(ResizeFilter.lanczos3(x, sines.current) - ResizeFilter.lanczos3.weight(x)))
                sines.advance()
            }
            #expect(worst < 1e-12, "from \(first) by \(step): \(worst)")
        }
    }

    @Test("Given an opaque flat colour, when resampled with the fixed-point pass, then it stays exactly that colour", arguments: ResizeFilter.allCases)
    func opaqueFlatStaysFlat(_ filter: ResizeFilter) {
        let colour = RGBA(r: 3, g: 128, b: 254, a: 255)
        let input = TransformFixtures.buffer(width: 101, height: 37) { _, _ in colour }
        for size in [PixelSize(width: 34, height: 12), PixelSize(width: 333, height: 40), PixelSize(width: 7, height: 37)] {
            let out = Resampler(filter: filter).resample(input, to: size)
            var wrong = 0
            for y in 0..<out.height {
                for x in 0..<out.width where out.pixel(x: x, y: y) != colour { wrong += 1 }
            }
            #expect(wrong == 0, "\(filter) \(size): \(wrong) pixels changed")
        }
    }
}
