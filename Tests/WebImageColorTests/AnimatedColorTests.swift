import Foundation
import Testing
import WebImageCodecs
import WebImageCore

/// G-2 for animations: frames read one at a time through the animated sources are converted
/// like a whole decode's.
@Suite("Colour: animations")
struct AnimatedColorTests {
    @Test("Given a tagged animated WebP and APNG, when frames are read from their animated sources, then they match LittleCMS")
    func animatedSourcesConvert() throws {
        let profile = TestProfiles.profile(TestProfiles.displayP3)
        let frames = [
            ImageFrame(pixels: TestImages.pattern(seed: 1), duration: 0.1),
            ImageFrame(pixels: TestImages.pattern(seed: 2), duration: 0.1),
        ]
        let image = Image(frames: frames, loopCount: 0, hasAlpha: false, colorProfile: profile)
        var ignore = DecodeOptions()
        ignore.colorManagement = .ignore
        let cases: [(ImageFormat, any AnimatedImageDecoding, EncodeOptions)] = [
            (.webp, WebPCoder(), EncodeOptions(lossless: true, keepAnimation: true)),
            (.png, PNGCoder(), EncodeOptions(keepAnimation: true)),
        ]
        for (format, coder, options) in cases {
            let data = try coder.encode(image, format: format, options: options)
            #expect(coder.isAnimated(data), "\(format)")
            let converted = try coder.makeAnimatedSource(data, options: .default)
            let stored = try coder.makeAnimatedSource(data, options: ignore)
            for index in 0..<2 {
                let reference = TestProfiles.reference(try stored.frame(at: index), from: profile)
                let difference = ColorDifference(try converted.frame(at: index), reference)
                #expect(difference.mean <= 0.5 && difference.p95 <= 1.0, "\(format) frame \(index): \(difference)")
            }
            // The whole decode agrees with the frame-by-frame one.
            let whole = try coder.decode(data, options: .default)
            #expect(whole.frames[1].pixels.bytes == (try converted.frame(at: 1)).bytes, "\(format)")
        }
    }
}
