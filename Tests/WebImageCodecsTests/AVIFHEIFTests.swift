import Foundation
import Testing
import WebImageCodecs
import WebImageCore
import WebImageTesting

/// The AVIF (libavif) and HEIC/HEIF (libheif) decoders against the corpus. No reference
/// renderings exist for these formats; the generated files were made from the same sources as
/// other formats in `generated-valid/`, so decoded pixels are compared with those.
@Suite("AVIF and HEIF decoding")
struct AVIFHEIFTests {
    static let decodable = Corpus.entries { ($0.format == "AVIF" || $0.format == "HEIF") && $0.mustDecode }.map(\.path)

    private func decode(_ path: String, options: DecodeOptions = .default) throws -> Image {
        try CodersManager.shared.decode(try Corpus.data(path), options: options)
    }

    private func psnr(_ image: PixelBuffer, against path: String, frame: Int = 0) throws -> Double {
        let reference = try decode(path)
        return try #require(PixelDifference.between(image, reference.frames[frame].pixels)).psnr
    }

    @Test(
        "Given an AVIF or HEIF the manifest marks decodable, when decoded, then size and frame count match the manifest and metadata agrees",
        .enabled(if: Corpus.isAvailable), arguments: decodable)
    func decodesToManifestSize(path: String) throws {
        let entry = try #require(Corpus.manifest.first { $0.path == path })
        let data = try Corpus.data(path)
        let image = try CodersManager.shared.decode(data, options: .default)
        #expect(image.width == entry.width && image.height == entry.height)
        #expect(image.frames.count == entry.frames)
        #expect(image.format == ImageFormat.detect(data))
        #expect(image.frames.allSatisfy { $0.pixels.width == image.width && $0.pixels.height == image.height })
        let metadata = try CodersManager.shared.readMetadata(data)
        #expect(metadata.pixelSize == image.pixelSize)
        #expect(metadata.frameCount == entry.frames)
        #expect(metadata.isAnimated == entry.animated.hasPrefix("yes"))
    }

    @Test("Given still images made from one source, then AVIF and HEIC decode close to the JPEG of it", .enabled(if: Corpus.isAvailable))
    func stillImagesMatchTheirSource() throws {
        for path in ["generated-valid/still_64x48.avif", "generated-valid/still_64x48.heic"] {
            let image = try decode(path)
            let quality = try psnr(image.pixels, against: "generated-valid/progressive_64x48.jpg")
            #expect(quality >= 24, "\(path): \(quality) dB")
            #expect(!image.hasAlpha)
            #expect(image.pixels.bytes.enumerated().allSatisfy { $0.offset % 4 != 3 || $0.element == 255 })
        }
    }

    @Test("Given images with alpha made from one source, then AVIF and HEIC keep the alpha and decode close to the WebP of it", .enabled(if: Corpus.isAvailable))
    func alphaImagesMatchTheirSource() throws {
        for path in ["generated-valid/alpha_64x48.avif", "generated-valid/alpha_64x48.heic"] {
            let image = try decode(path)
            #expect(image.hasAlpha)
            #expect(image.pixels.bytes.enumerated().contains { $0.offset % 4 == 3 && $0.element < 200 })
            let quality = try psnr(image.pixels, against: "generated-valid/alpha_lossy_64x48.webp")
            #expect(quality >= 24, "\(path): \(quality) dB")
        }
    }

    @Test("Given an animated AVIF, then each frame matches the same frame of the WebP of its source, with durations, and a lazy source gives the same frames in any order", .enabled(if: Corpus.isAvailable))
    func animatedAVIF() throws {
        let path = "generated-valid/anim_6f_64x48.avif"
        let image = try decode(path)
        let reference = try decode("generated-valid/anim_6f_lossy_64x48.webp")
        #expect(image.frames.count == 6 && reference.frames.count == 6)
        for (index, frame) in image.frames.enumerated() {
            let qualities = try reference.frames.map { try #require(PixelDifference.between(frame.pixels, $0.pixels)).psnr }
            #expect(qualities[index] >= 30, "frame \(index): \(qualities)")
            #expect(qualities.indices.max { qualities[$0] < qualities[$1] } == index, "frame \(index) is closest to its own")
            #expect(frame.duration > 0)
        }
        #expect(image.loopCount == 0)
        let source = try AVIFCoder().makeAnimatedSource(try Corpus.data(path), options: .default)
        #expect(source.frameCount == 6 && source.canvasSize == image.pixelSize)
        for index in [3, 4, 0, 5, 1] {
            #expect(try source.frame(at: index).bytes == image.frames[index].pixels.bytes, "frame \(index)")
        }
        #expect(throws: WebImageError.self) { try source.frame(at: 6) }
        #expect(try decode(path, options: DecodeOptions(firstFrameOnly: true)).frames.count == 1)
    }

    @Test("Given a thumbnail size, then AVIF and HEIC frames fit it with the aspect ratio kept", .enabled(if: Corpus.isAvailable))
    func thumbnails() throws {
        let options = DecodeOptions(thumbnailPixelSize: PixelSize(width: 32, height: 32))
        for path in ["generated-valid/anim_6f_64x48.avif", "generated-valid/still_64x48.heic", "sdwebimage/TestHDR.avif"] {
            let image = try decode(path, options: options)
            let full = try CodersManager.shared.readMetadata(try Corpus.data(path)).pixelSize
            #expect(image.pixelSize == options.targetSize(for: full), "\(path)")
            #expect(image.frames.allSatisfy { $0.pixels.width == image.width })
        }
    }

    @Test("Given limits below the image, then AVIF and HEIC are refused with imageTooLarge before decoding", .enabled(if: Corpus.isAvailable))
    func limits() throws {
        var small = DecodeOptions()
        small.limits.maxPixelCount = 64 * 47
        func isTooLarge(_ error: any Error) -> Bool {
            if case WebImageError.imageTooLarge = error { return true } else { return false }
        }
        for path in ["generated-valid/still_64x48.avif", "generated-valid/still_64x48.heic"] {
            #expect(performing: { try decode(path, options: small) }, throws: isTooLarge)
        }
        var fewFrames = DecodeOptions()
        fewFrames.limits.maxFrameCount = 5
        #expect(performing: { try decode("generated-valid/anim_6f_64x48.avif", options: fewFrames) }, throws: isTooLarge)
    }

    @Test("Given a HEIC whose crop is within the limit but whose coded size is not, then imageTooLarge before decoding", .enabled(if: Corpus.isAvailable))
    func codedSizeLimit() throws {
        // still_64x48.heic is coded at 64x64 (ispe) and cropped to 64x48 (clap).
        var options = DecodeOptions()
        options.limits.maxPixelCount = 64 * 48
        #expect(performing: { try decode("generated-valid/still_64x48.heic", options: options) }, throws: { error in
            if case WebImageError.imageTooLarge = error { return true } else { return false }
        })
        options.limits.maxPixelCount = 64 * 64
        #expect(try decode("generated-valid/still_64x48.heic", options: options).pixelSize == PixelSize(width: 64, height: 48))
    }

    @Test("Given every prefix and 150 seeded mutations of the AVIF and HEIC files, then decoding gives an image or a typed error, never a crash", .enabled(if: Corpus.isAvailable))
    func truncationsAndMutations() throws {
        let seeds = try ["generated-valid/anim_6f_64x48.avif", "generated-valid/alpha_64x48.avif",
                         "generated-valid/alpha_64x48.heic", "generated-valid/still_64x48.heic"].map { try [UInt8](Corpus.data($0)) }
        func exercise(_ data: Data) {
            do {
                let image = try CodersManager.shared.decode(data, options: .default)
                #expect(image.frames.allSatisfy { $0.pixels.width == image.width && $0.pixels.height == image.height })
            } catch {
                #expect(error is WebImageError, "\(error)")
            }
            _ = try? CodersManager.shared.readMetadata(data)
            if let source = try? AVIFCoder().makeAnimatedSource(data, options: .default) {
                for index in 0..<min(source.frameCount, 8) { _ = try? source.frame(at: index) }
            }
        }
        for bytes in seeds {
            for end in stride(from: 0, to: bytes.count, by: max(1, bytes.count / 97)) { exercise(Data(bytes[..<end])) }
        }
        var generator = SeededRandom(seed: 0xA71F)
        for round in 0..<150 {
            var bytes = seeds[round % seeds.count]
            generator.mutate(&bytes)
            exercise(Data(bytes))
        }
    }

    @Test("Then the built-in coders include the AVIF and HEIF coders")
    func registered() {
        #expect(BuiltInCoders.all.contains { $0 is AVIFCoder })
        #expect(BuiltInCoders.all.contains { $0 is HEIFCoder })
    }
}
