import Foundation
import Testing
import WebImageCore

@Suite("Image model (I-1, I-2)")
struct ImageModelTests {
    static func solid(_ w: Int, _ h: Int, _ c: RGBA) -> PixelBuffer {
        PixelBuffer(width: w, height: h, bytes: Array((0..<(w * h)).map { _ in [c.r, c.g, c.b, c.a] }.joined()))
    }

    @Test("Given frames sharing a buffer, when cost is computed, then the buffer counts once")
    func costCountsSharedFramesOnce() {
        let a = Self.solid(4, 4, RGBA(r: 1, g: 2, b: 3))
        let b = Self.solid(4, 4, RGBA(r: 9, g: 9, b: 9))
        let image = Image(frames: [ImageFrame(pixels: a, duration: 0.1), ImageFrame(pixels: a, duration: 0.1), ImageFrame(pixels: b, duration: 0.1)], loopCount: 3)
        #expect(image.cost == 2 * 4 * 4 * 4)
        #expect(image.isAnimated)
        #expect(image.loopCount == 3)
        #expect(abs(image.duration - 0.3) < 1e-9)
    }

    @Test("Given a 2x3 buffer, when each orientation is applied, then corners land where EXIF says")
    func orientation() {
        // Stored: (0,0)=A (1,0)=B / (0,1)=C (1,1)=D / (0,2)=E (1,2)=F
        let colours: [UInt8] = [1, 2, 3, 4, 5, 6]
        let buffer = PixelBuffer(width: 2, height: 3, bytes: colours.flatMap { [$0, 0, 0, 255] })
        func grid(_ p: PixelBuffer) -> [[UInt8]] {
            (0..<p.height).map { y in (0..<p.width).map { x in p.pixel(x: x, y: y).r } }
        }
        #expect(grid(buffer.applying(.up)) == [[1, 2], [3, 4], [5, 6]])
        #expect(grid(buffer.applying(.upMirrored)) == [[2, 1], [4, 3], [6, 5]])
        #expect(grid(buffer.applying(.down)) == [[6, 5], [4, 3], [2, 1]])
        #expect(grid(buffer.applying(.downMirrored)) == [[5, 6], [3, 4], [1, 2]])
        #expect(grid(buffer.applying(.leftMirrored)) == [[1, 3, 5], [2, 4, 6]])
        #expect(grid(buffer.applying(.right)) == [[5, 3, 1], [6, 4, 2]])
        #expect(grid(buffer.applying(.rightMirrored)) == [[6, 4, 2], [5, 3, 1]])
        #expect(grid(buffer.applying(.left)) == [[2, 4, 6], [1, 3, 5]])
    }

    @Test("Given a half-transparent edge, when downscaled, then colour is alpha-weighted")
    func downscaleAlphaWeighted() {
        // Left pixel opaque red, right pixel fully transparent black.
        let buffer = PixelBuffer(width: 2, height: 1, bytes: [255, 0, 0, 255, 0, 0, 0, 0])
        let small = buffer.downscaled(to: PixelSize(width: 1, height: 1))
        #expect(small.pixel(x: 0, y: 0) == RGBA(r: 255, g: 0, b: 0, a: 128))
    }

    @Test("Given thumbnail boxes, then the fit keeps the ratio and never enlarges")
    func thumbnailSizing() {
        let full = PixelSize(width: 4000, height: 3000)
        #expect(ThumbnailSizing.fit(full, within: PixelSize(width: 400, height: 400), preserveAspectRatio: true) == PixelSize(width: 400, height: 300))
        #expect(ThumbnailSizing.fit(full, within: PixelSize(width: 400, height: 400), preserveAspectRatio: false) == PixelSize(width: 400, height: 400))
        #expect(ThumbnailSizing.fit(full, within: PixelSize(width: 8000, height: 8000), preserveAspectRatio: true) == full)
    }

    @Test("Given the default limits, then a 10 Gpx canvas is refused and an ordinary one passes")
    func limits() throws {
        let limits = DecodeLimits.default
        try limits.check(canvas: PixelSize(width: 4000, height: 3000))
        #expect(throws: WebImageError.self) { try limits.check(canvas: PixelSize(width: 100_000, height: 100_000)) }
        #expect(throws: WebImageError.self) { try limits.check(canvas: PixelSize(width: 0, height: 3)) }
        #expect(throws: WebImageError.self) { try limits.check(frames: 10_000, of: PixelSize(width: 10, height: 10)) }
    }

    @Test("Given frame delays, then tiny ones are clamped as browsers do")
    func frameDelay() {
        #expect(FrameDelay.clamped(0) == 0.1)
        #expect(FrameDelay.clamped(0.01) == 0.1)
        #expect(FrameDelay.clamped(0.02) == 0.02)
    }
}
