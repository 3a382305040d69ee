import Foundation
import Testing
import WebImageCodecs
import WebImageCore
import WebImageTesting

/// JPEG XL encoding (``JXLCoder``): pixels, animations, and the lossless recompression of JPEG
/// files whose original bytes come back — through libjxl in-process and through `djxl`.
@Suite struct JXLEncodingTests {
    static func gradient(width: Int, height: Int, alpha: Bool = false, shift: Int = 0) -> PixelBuffer {
        PixelBuffer.make(width: width, height: height) { out in
            for y in 0..<height {
                for x in 0..<width {
                    let i = (y * width + x) * 4
                    out[i] = UInt8((x * 255 / max(1, width - 1) + shift) & 0xFF)
                    out[i + 1] = UInt8(y * 255 / max(1, height - 1))
                    out[i + 2] = UInt8((x + y) & 0xFF)
                    out[i + 3] = alpha ? UInt8((x * 7 + y * 3) & 0xFF) : 255
                }
            }
        }
    }

    @Test("Given RGB or RGBA pixels, when encoded losslessly as JPEG XL, then they decode back exactly", arguments: [false, true])
    func losslessRoundTrip(alpha: Bool) throws {
        let pixels = Self.gradient(width: 61, height: 37, alpha: alpha)
        let data = try JXLCoder().encode(
            Image(pixels: pixels, hasAlpha: alpha), format: .jxl, options: EncodeOptions(lossless: true))
        #expect(ImageFormat.detect(data) == .jxl)
        let decoded = try JXLCoder().decode(data, options: DecodeOptions())
        #expect(decoded.pixels.bytes == pixels.bytes)
        #expect(decoded.hasAlpha == alpha)
    }

    @Test("Given two qualities, when encoded lossy, then the higher one is larger and scores high against the original")
    func lossyQualityOrdersSizeAndCloseness() throws {
        let pixels = Self.gradient(width: 128, height: 96)
        let image = Image(pixels: pixels, hasAlpha: false)
        var low = EncodeOptions(quality: 0.3)
        low.jxlEffort = 3
        var high = EncodeOptions(quality: 0.9)
        high.jxlEffort = 3
        let small = try JXLCoder().encode(image, format: .jxl, options: low)
        let large = try JXLCoder().encode(image, format: .jxl, options: high)
        #expect(small.count < large.count)
        let decoded = try JXLCoder().decode(large, options: DecodeOptions())
        #expect(decoded.width == 128 && decoded.height == 96)
        let score = try SSIMULACRA2.score(reference: pixels, distorted: decoded.pixels)
        #expect(score > 70, "\(score)")
    }

    @Test("Given an animation, when encoded as JPEG XL, then every frame and duration and the loop count survive")
    func animationKeepsFramesAndDurations() throws {
        let durations = [0.1, 0.25, 0.04]
        let frames = durations.enumerated().map { index, duration in
            ImageFrame(pixels: Self.gradient(width: 20, height: 10, shift: index * 80), duration: duration)
        }
        let data = try JXLCoder().encode(
            Image(frames: frames, loopCount: 3, hasAlpha: false), format: .jxl, options: EncodeOptions(lossless: true))
        let decoded = try JXLCoder().decode(data, options: DecodeOptions())
        #expect(decoded.frames.count == 3)
        #expect(decoded.loopCount == 3)
        for (frame, (original, duration)) in zip(decoded.frames, zip(frames, durations)) {
            #expect(abs(frame.duration - duration) < 0.0005)
            #expect(frame.pixels.bytes == original.pixels.bytes)
        }
    }

    /// The corpus's JPEGs that libjxl recompresses (some it cannot take, said in the report).
    static var corpusJPEGs: [String] {
        Corpus.entries { $0.path.lowercased().hasSuffix(".jpg") || $0.path.lowercased().hasSuffix(".jpeg") }
            .filter(\.mustDecode).map(\.path)
    }

    @Test("Given the corpus's JPEGs, when recompressed losslessly, then libjxl gives back the very same bytes",
          .enabled(if: Corpus.isAvailable))
    func losslessJPEGRecompressionRoundTrips() throws {
        var original = 0, recompressed = 0, refused: [String] = []
        for path in Self.corpusJPEGs {
            let jpeg = try Corpus.data(path)
            guard let jxl = try? JXLCoder().recompressJPEG(jpeg) else {
                refused.append(path)
                continue
            }
            #expect(ImageFormat.detect(jxl) == .jxl, "\(path)")
            let back = try JXLCoder().reconstructJPEG(jxl)
            #expect(back == jpeg, "\(path): \(back?.count ?? -1) bytes back for \(jpeg.count)")
            original += jpeg.count
            recompressed += jxl.count
        }
        #expect(refused.count * 4 < Self.corpusJPEGs.count, "refused: \(refused)")
        #expect(original > 0)
        print("JPEG → JPEG XL over \(Self.corpusJPEGs.count - refused.count) corpus JPEGs: \(original) → \(recompressed) bytes; refused \(refused)")
    }

    @Test("Given a recompressed JPEG, when djxl reconstructs it, then the bytes are the original's")
    func djxlReconstructsTheOriginal() throws {
        let jpeg = try JPEGCoder().encode(
            Image(pixels: Self.gradient(width: 90, height: 50), hasAlpha: false), format: .jpeg, options: EncodeOptions(quality: 0.8))
        let jxl = try JXLCoder().recompressJPEG(jpeg, effort: 4)
        #expect(try DJXLTool.reconstruct(jxl) == jpeg)
    }

    @Test("Given a pixel-encoded JPEG XL file, when asked for its JPEG, then there is none")
    func pixelFileHasNoJPEG() throws {
        let data = try JXLCoder().encode(
            Image(pixels: Self.gradient(width: 16, height: 16), hasAlpha: false), format: .jxl, options: EncodeOptions(quality: 0.8))
        #expect(try JXLCoder().reconstructJPEG(data) == nil)
    }

    @Test("Given data that is not a JPEG, when recompressed, then a typed error says so")
    func recompressionRefusesOtherData() {
        #expect(throws: WebImageError.self) { try JXLCoder().recompressJPEG(Data([0x89, 0x50, 0x4E, 0x47, 1, 2, 3])) }
        #expect(throws: WebImageError.self) { try JXLCoder().recompressJPEG(Data([0xFF, 0xD8, 0xFF, 0xE0, 0, 4, 0, 0])) }
    }
}

