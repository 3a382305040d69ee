import Foundation
import Testing
import WebImageCodecs
import WebImageCore
import WebImageTesting

@Suite("GIF robustness")
struct GIFRobustnessTests {
    let coder = GIFCoder()

    @Test("Given a 65535x65535 logical screen, when decoded, then imageTooLarge is thrown before allocating",
          .enabled(if: Corpus.isAvailable))
    func screenBomb() throws {
        let data = try Corpus.data("malformed/generated/gif_bomb_screen_65535x65535.gif")
        for options in [DecodeOptions.default, DecodeOptions(firstFrameOnly: true),
                        DecodeOptions(thumbnailPixelSize: PixelSize(width: 64, height: 64))] {
            #expect {
                _ = try coder.decode(data, options: options)
            } throws: { error in
                guard case WebImageError.imageTooLarge = error else { return false }
                return true
            }
        }
        #expect(throws: WebImageError.self) { _ = try coder.makeAnimatedSource(data, options: .default) }
        // Metadata still reports the declared size without allocating.
        #expect(try coder.readMetadata(data).pixelSize == PixelSize(width: 65_535, height: 65_535))
    }

    @Test("Given a frame-count limit below the animation's frames, then imageTooLarge is thrown",
          .enabled(if: Corpus.isAvailable))
    func frameLimit() throws {
        var limits = DecodeLimits()
        limits.maxFrameCount = 3
        let data = try Corpus.data("generated-valid/anim_6f_loop3_64x48.gif")
        #expect {
            _ = try coder.decode(data, options: DecodeOptions(limits: limits))
        } throws: { error in
            guard case WebImageError.imageTooLarge = error else { return false }
            return true
        }
        // Only the first frame is needed with firstFrameOnly.
        #expect(try coder.decode(data, options: DecodeOptions(firstFrameOnly: true, limits: limits)).frames.count == 1)
    }

    @Test("Given non-GIF, empty and header-only data, when decoded, then badImageData is thrown")
    func notAGIF() {
        let inputs: [[UInt8]] = [[], Array("GIF89a".utf8), Array("GIF89a".utf8) + [1, 0, 1, 0, 0, 0, 0], Array("hello".utf8)]
        for bytes in inputs {
            #expect {
                _ = try coder.decode(Data(bytes), options: .default)
            } throws: { error in
                guard case WebImageError.badImageData = error else { return false }
                return true
            }
        }
    }

    @Test("Given an animated GIF truncated inside a later frame, then the complete frames are returned",
          .enabled(if: Corpus.isAvailable))
    func truncatedAfterFirstFrame() throws {
        let data = try Corpus.data("generated-valid/anim_6f_loop3_64x48.gif")
        let full = try coder.decode(data, options: .default)
        let image = try coder.decode(data.prefix(data.count * 3 / 4), options: .default)
        #expect(image.frames.count >= 1 && image.frames.count < 6)
        for (index, frame) in image.frames.enumerated() { #expect(frame.pixels.bytes == full.frames[index].pixels.bytes) }
    }

    @Test("Given every prefix of a GIF, when decoded, then it succeeds or throws WebImageError",
          .enabled(if: Corpus.isAvailable))
    func truncations() throws {
        let data = try Corpus.data("gif/anim/mixed-disposal.gif")
        for length in 0..<data.count {
            let prefix = data.prefix(length)
            do {
                let image = try coder.decode(prefix, options: .default)
                #expect(image.frames.count >= 1)
            } catch {
                #expect(error is WebImageError)
            }
            _ = coder.isAnimated(prefix)
            _ = try? coder.readMetadata(prefix)
        }
    }

    @Test("Given 200 deterministic random mutations of valid GIFs, when decoded, then nothing crashes",
          .enabled(if: Corpus.isAvailable))
    func mutations() throws {
        var generator = SeededRandom(seed: 0x61F5_EED)
        let seeds = try ["gif/anim/mixed-disposal.gif", "gif/anim/interlaced.gif", "generated-valid/anim_6f_loop3_64x48.gif",
                         "gif/anim/issue_1455_undersized.gif"].map { try [UInt8](Corpus.data($0)) }
        for round in 0..<200 {
            var bytes = seeds[round % seeds.count]
            generator.mutate(&bytes)
            let data = Data(bytes)
            do {
                let image = try coder.decode(data, options: .default)
                #expect(image.frames.allSatisfy { $0.pixels.width == image.width && $0.pixels.height == image.height })
            } catch {
                #expect(error is WebImageError)
            }
            _ = coder.isAnimated(data)
            _ = try? coder.readMetadata(data)
            if let source = try? coder.makeAnimatedSource(data, options: .default) {
                for index in 0..<min(source.frameCount, 8) { _ = try? source.frame(at: index) }
            }
        }
    }

    @Test("Given a GIF without any colour map, then it decodes with black and white")
    func missingColorMap() throws {
        // 2x1 screen, no global map; one 2x1 frame with indices 0, 1 (LZW min code size 2).
        var bytes = Array("GIF89a".utf8) + [2, 0, 1, 0, 0x00, 0, 0]
        bytes += [0x2C, 0, 0, 0, 0, 2, 0, 1, 0, 0x00]
        bytes += gifLZWData(indices: [0, 1], minimumCodeSize: 2)
        bytes += [0x3B]
        let image = try coder.decode(Data(bytes), options: .default)
        #expect(image.pixels.pixel(x: 0, y: 0) == RGBA(r: 0, g: 0, b: 0))
        #expect(image.pixels.pixel(x: 1, y: 0) == RGBA(r: 255, g: 255, b: 255))
    }
}

/// Uncompressed-style LZW data (a clear code before every pixel), valid for any decoder.
func gifLZWData(indices: [UInt8], minimumCodeSize: Int) -> [UInt8] {
    let clear = 1 << minimumCodeSize
    let codeSize = minimumCodeSize + 1
    var bits: UInt32 = 0
    var count = 0
    var out: [UInt8] = []
    func put(_ code: Int) {
        bits |= UInt32(code) << UInt32(count)
        count += codeSize
        while count >= 8 {
            out.append(UInt8(bits & 0xFF))
            bits >>= 8
            count -= 8
        }
    }
    for index in indices {
        put(clear)
        put(Int(index))
    }
    put(clear + 1)
    if count > 0 { out.append(UInt8(bits & 0xFF)) }
    var result: [UInt8] = [UInt8(minimumCodeSize)]
    var offset = 0
    while offset < out.count {
        let n = min(255, out.count - offset)
        result.append(UInt8(n))
        result += out[offset..<(offset + n)]
        offset += n
    }
    result.append(0)
    return result
}

