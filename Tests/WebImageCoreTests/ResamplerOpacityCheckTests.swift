import Testing
import WebImageTesting
@testable import WebImageCore

/// The fixed-point passes find out whether a row is opaque while they read it: exactly over the
/// pixels the horizontal kernel reads (the span `firstInput..<endInput`), in every kernel set.
@Suite("Resampler opacity check")
struct ResamplerOpacityCheckTests {
    /// Dark opaque noise (so a white pixel taken as opaque would show), `width`×`height`.
    static func dark(width: Int, height: Int) -> [UInt8] {
        var random = SeededRandom(seed: 0x0A1F_A000)
        return (0..<width * height * 4).map { i in i % 4 == 3 ? 255 : UInt8(random.below(60)) }
    }

    @Test(
        "Given one transparent white pixel at the edges of the span the kernel reads or just outside it, when resampled by every kernel set, then a pixel inside turns the row premultiplied and one outside changes nothing",
        arguments: [ResizeFilter.box, .lanczos3], [Int32(0)] + WideKernels.levels)
    func spanEdges(_ filter: ResizeFilter, level: Int32) {
        // The box filter weighs the span's edge pixels as much as any (a white pixel taken as
        // opaque would move its outputs by tens of levels); Lanczos3's edge taps are small.
        let sw = 203, sh = 60
        let region = ResampleRegion(x: 20.5, y: 0, width: 150, height: Double(sh))
        let size = PixelSize(width: 41, height: 23)
        let span = KernelTable(filter: filter, inSize: sw, outSize: size.width, start: region.x, length: region.width)
        #expect(span.firstInput > 0 && span.endInput < sw, "the span must leave pixels outside it on both sides")
        var resampler = Resampler(filter: filter)
        resampler.kernelLevel = level
        var float = Resampler(filter: filter)
        float.usesFixedPoint = false
        let opaque = PixelBuffer(width: sw, height: sh, bytes: Self.dark(width: sw, height: sh))
        let untouched = resampler.resample(opaque, to: size, region: region)
        let columns = [
            (span.firstInput, true), (span.endInput - 1, true), (span.firstInput - 1, false), (span.endInput, false),
        ]
        for (column, inside) in columns {
            for row in [0, 31, sh - 1] {
                var bytes = opaque.bytes
                let at = (row * sw + column) * 4
                (bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]) = (255, 255, 255, 0)
                let input = PixelBuffer(width: sw, height: sh, bytes: bytes)
                let result = resampler.resample(input, to: size, region: region)
                let label = "\(WideKernels.name(level)) \(filter) column \(column) row \(row)"
                if inside {
                    let reference = float.resample(input, to: size, region: region)
                    var worst = 0
                    for (a, b) in zip(result.bytes, reference.bytes) { worst = max(worst, abs(Int(a) - Int(b))) }
                    #expect(worst <= 1, "\(label): differs from the premultiplied Float path by \(worst)")
                } else {
                    #expect(result.bytes == untouched.bytes, "\(label): a pixel the kernel does not read changed the output")
                }
            }
        }
    }
}
