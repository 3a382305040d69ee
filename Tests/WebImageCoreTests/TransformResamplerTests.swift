import Testing
import WebImageCore

@Suite("Resampler")
struct TransformResamplerTests {
    @Test("Given several threads, when resampling, then the output equals the single-threaded output", arguments: ResizeFilter.allCases)
    func threadsAgree(_ filter: ResizeFilter) {
        let input = TransformFixtures.pattern(width: 97, height: 61)
        for size in [PixelSize(width: 31, height: 17), PixelSize(width: 150, height: 90)] {
            let one = Resampler(filter: filter, maxThreads: 1).resample(input, to: size)
            let many = Resampler(filter: filter, maxThreads: 4).resample(input, to: size)
            #expect(one.bytes == many.bytes)
        }
    }

    @Test("Given a flat colour, when resampled up or down with any filter, then it stays that colour", arguments: ResizeFilter.allCases)
    func flatStaysFlat(_ filter: ResizeFilter) {
        let input = TransformFixtures.buffer(width: 23, height: 19) { _, _ in RGBA(r: 12, g: 200, b: 99, a: 180) }
        for size in [PixelSize(width: 5, height: 4), PixelSize(width: 61, height: 40), PixelSize(width: 23, height: 7)] {
            let out = input.resized(to: size, filter: filter)
            #expect(out.width == size.width && out.height == size.height)
            for y in 0..<out.height {
                for x in 0..<out.width { #expect(out.pixel(x: x, y: y) == RGBA(r: 12, g: 200, b: 99, a: 180)) }
            }
        }
    }

    @Test("Given a region, when resampled at its own size, then the region's pixels come out")
    func regionIsCrop() {
        let input = TransformFixtures.pattern(width: 20, height: 10)
        let out = Resampler(filter: .lanczos3).resample(
            input, to: PixelSize(width: 6, height: 4), region: ResampleRegion(x: 3, y: 2, width: 6, height: 4))
        for y in 0..<4 {
            for x in 0..<6 { #expect(out.pixel(x: x, y: y) == input.pixel(x: x + 3, y: y + 2)) }
        }
    }

    @Test("Given sizes below 1 or a region outside, when resampled, then the result is still valid")
    func degenerateArguments() {
        let input = TransformFixtures.pattern(width: 5, height: 5)
        let zero = input.resized(to: PixelSize(width: 0, height: -3))
        #expect(zero.width == 1 && zero.height == 1)
        let outside = Resampler().resample(input, to: PixelSize(width: 2, height: 2), region: ResampleRegion(x: 50, y: 50, width: 1, height: 1))
        #expect(outside.width == 2)
        let nan = Resampler().resample(input, to: PixelSize(width: 2, height: 2), region: ResampleRegion(x: .nan, y: 0, width: 1, height: 1))
        #expect(nan.width == 2)
    }
}
