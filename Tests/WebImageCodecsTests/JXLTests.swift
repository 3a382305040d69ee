import CJXL
import Foundation
import Testing
import WebImageCodecs
import WebImageCore
import WebImageTesting

/// Lossless JPEG XL files encoded here with libjxl (the corpus has one JPEG XL file).
enum JXLTestEncoder {
    /// `frames` (all the same size) as a lossless JPEG XL: an animation with `durations` in
    /// milliseconds when there is more than one frame, the given orientation tag and loops.
    static func encode(
        _ frames: [PixelBuffer], alpha: Bool, orientation: ImageOrientation = .up, durations: [UInt32] = [], loops: UInt32 = 0,
        animated: Bool? = nil
    ) throws -> Data {
        let first = try #require(frames.first)
        let encoder = try #require(JxlEncoderCreate(nil))
        defer { JxlEncoderDestroy(encoder) }
        var info = JxlBasicInfo()
        JxlEncoderInitBasicInfo(&info)
        info.xsize = UInt32(first.width)
        info.ysize = UInt32(first.height)
        info.bits_per_sample = 8
        info.exponent_bits_per_sample = 0
        info.uses_original_profile = JXL_TRUE
        info.num_color_channels = 3
        info.num_extra_channels = alpha ? 1 : 0
        info.alpha_bits = alpha ? 8 : 0
        info.orientation = JxlOrientation(UInt32(orientation.rawValue))
        let animated = animated ?? (frames.count > 1)
        if animated {
            info.have_animation = JXL_TRUE
            info.animation.tps_numerator = 1000
            info.animation.tps_denominator = 1
            info.animation.num_loops = loops
        }
        try #require(JxlEncoderSetBasicInfo(encoder, &info) == JXL_ENC_SUCCESS)
        var color = JxlColorEncoding()
        JxlColorEncodingSetToSRGB(&color, JXL_FALSE)
        try #require(JxlEncoderSetColorEncoding(encoder, &color) == JXL_ENC_SUCCESS)
        let settings = try #require(JxlEncoderFrameSettingsCreate(encoder, nil))
        try #require(JxlEncoderSetFrameLossless(settings, JXL_TRUE) == JXL_ENC_SUCCESS)
        for (index, frame) in frames.enumerated() {
            if animated {
                var header = JxlFrameHeader()
                JxlEncoderInitFrameHeader(&header)
                header.duration = index < durations.count ? durations[index] : 100
                try #require(JxlEncoderSetFrameHeader(settings, &header) == JXL_ENC_SUCCESS)
            }
            var bytes = alpha ? frame.bytes : stride(from: 0, to: frame.bytes.count, by: 4).flatMap { frame.bytes[$0..<$0 + 3] }
            var format = JxlPixelFormat(num_channels: alpha ? 4 : 3, data_type: JXL_TYPE_UINT8, endianness: JXL_NATIVE_ENDIAN, align: 0)
            let added = bytes.withUnsafeMutableBytes { JxlEncoderAddImageFrame(settings, &format, $0.baseAddress, $0.count) }
            try #require(added == JXL_ENC_SUCCESS)
        }
        JxlEncoderCloseInput(encoder)
        var output = [UInt8](repeating: 0, count: 4096)
        var written = 0
        while true {
            let status = output.withUnsafeMutableBufferPointer { buffer -> JxlEncoderStatus in
                var next = buffer.baseAddress.map { $0 + written }
                var available = buffer.count - written
                let status = JxlEncoderProcessOutput(encoder, &next, &available)
                written = buffer.count - available
                return status
            }
            if status == JXL_ENC_SUCCESS { break }
            try #require(status == JXL_ENC_NEED_MORE_OUTPUT)
            output += [UInt8](repeating: 0, count: output.count)
        }
        return Data(output[..<written])
    }
}

@Suite("JPEG XL decoding")
struct JXLTests {
    let coder = JXLCoder()

    /// A pattern without symmetry; translucent pixels when `alpha`.
    static func pattern(width: Int = 6, height: Int = 4, seed: Int = 0, alpha: Bool) -> PixelBuffer {
        PixelBuffer.make(width: width, height: height) { out in
            for y in 0..<height {
                for x in 0..<width {
                    let i = (y * width + x) * 4
                    out[i] = UInt8((x * 40 + seed * 17) & 255)
                    out[i + 1] = UInt8((y * 60 + seed * 5) & 255)
                    out[i + 2] = UInt8(((x + y * width) * 9) & 255)
                    out[i + 3] = alpha ? UInt8(255 - (x + y) * 20) : 255
                }
            }
        }
    }

    @Test("Given the corpus' JPEG XL photo, then it decodes at its size and metadata agrees", .enabled(if: Corpus.isAvailable))
    func corpusFile() throws {
        let data = try Corpus.data("sdwebimage/TestHDR.jxl")
        let image = try CodersManager.shared.decode(data, options: .default)
        #expect(image.format == .jxl && image.frames.count == 1)
        let metadata = try CodersManager.shared.readMetadata(data)
        #expect(metadata.pixelSize == image.pixelSize && metadata.format == .jxl && !metadata.isAnimated)
        #expect(image.width > 100 && image.height > 100)
    }

    @Test("Given lossless stills with and without alpha, then the pixels come back exactly", arguments: [false, true])
    func losslessRoundTrip(alpha: Bool) throws {
        let stored = Self.pattern(alpha: alpha)
        let image = try coder.decode(try JXLTestEncoder.encode([stored], alpha: alpha), options: .default)
        #expect(image.pixels.bytes == stored.bytes)
        #expect(image.hasAlpha == alpha)
        #expect(image.frames.count == 1 && image.orientation == .up)
    }

    @Test("Given each orientation tag, then decode turns the pixels like JPEG does, metadata reports it, and applyOrientation off keeps them", arguments: ImageOrientation.allCases)
    func orientation(_ orientation: ImageOrientation) throws {
        let stored = Self.pattern(alpha: false)
        let file = try JXLTestEncoder.encode([stored], alpha: false, orientation: orientation)
        #expect(try coder.readMetadata(file).orientation == orientation)
        #expect(try coder.readMetadata(file).pixelSize == PixelSize(width: 6, height: 4))
        let upright = try coder.decode(file, options: .default)
        #expect(upright.orientation == .up)
        #expect(upright.pixels.bytes == stored.applying(orientation).bytes)
        let asStored = try coder.decode(file, options: DecodeOptions(applyOrientation: false))
        #expect(asStored.orientation == orientation && asStored.pixels.bytes == stored.bytes)
        let thumbnail = try coder.decode(file, options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 3, height: 3)))
        #expect(thumbnail.pixelSize == DecodeOptions(thumbnailPixelSize: PixelSize(width: 3, height: 3)).targetSize(for: upright.pixelSize))
    }

    @Test("Given a lossless animation, then every frame, its duration and the loop count come back; firstFrameOnly gives one frame; metadata counts the frames")
    func animation() throws {
        let frames = (0..<3).map { Self.pattern(seed: $0 * 3, alpha: true) }
        let file = try JXLTestEncoder.encode(frames, alpha: true, durations: [40, 250, 5], loops: 3)
        let image = try coder.decode(file, options: .default)
        #expect(image.frames.map(\.pixels.bytes) == frames.map(\.bytes))
        #expect(image.frames.map(\.duration) == [0.04, 0.25, FrameDelay.clamped(0.005)])
        #expect(image.loopCount == 3)
        #expect(try coder.decode(file, options: DecodeOptions(firstFrameOnly: true)).frames.count == 1)
        let metadata = try coder.readMetadata(file)
        #expect(metadata.frameCount == 3 && metadata.isAnimated && metadata.loopCount == 3)
        #expect(coder.isAnimated(file))
        #expect(!coder.isAnimated(try JXLTestEncoder.encode([frames[0]], alpha: true)))
        // An animation of one frame is not animated, as readMetadata and decode say.
        let single = try JXLTestEncoder.encode([frames[0]], alpha: true, durations: [100], animated: true)
        #expect(!coder.isAnimated(single))
        #expect(try !coder.readMetadata(single).isAnimated)

        let source = try coder.makeAnimatedSource(file, options: .default)
        #expect(source.frameCount == 3 && source.loopCount == 3 && source.canvasSize == image.pixelSize)
        #expect((0..<3).map { source.duration(ofFrame: $0) } == image.frames.map(\.duration))
        for index in [2, 0, 1, 1, 2, 0] {
            #expect(try source.frame(at: index).bytes == frames[index].bytes, "frame \(index)")
        }
        #expect(throws: WebImageError.self) { try source.frame(at: 3) }
        var limited = DecodeOptions()
        limited.limits.maxFrameCount = 2
        #expect(performing: { try coder.decode(file, options: limited) }, throws: { error in
            if case WebImageError.imageTooLarge = error { return true } else { return false }
        })
    }

    @Test("Given a canvas over the pixel limit, then imageTooLarge before decoding")
    func pixelLimit() throws {
        var options = DecodeOptions()
        options.limits.maxPixelCount = 23
        let file = try JXLTestEncoder.encode([Self.pattern(alpha: false)], alpha: false)
        #expect(performing: { try coder.decode(file, options: options) }, throws: { error in
            if case WebImageError.imageTooLarge = error { return true } else { return false }
        })
    }

    @Test("Given every prefix and 150 seeded mutations of JPEG XL files, then decoding gives an image or a typed error, never a crash", .enabled(if: Corpus.isAvailable))
    func truncationsAndMutations() throws {
        let animation = try JXLTestEncoder.encode((0..<3).map { Self.pattern(seed: $0, alpha: true) }, alpha: true, durations: [50, 50, 50])
        let seeds = [[UInt8](animation), [UInt8](try Corpus.data("sdwebimage/TestHDR.jxl"))]
        func exercise(_ data: Data) {
            do {
                let image = try coder.decode(data, options: .default)
                #expect(image.frames.allSatisfy { $0.pixels.width == image.width && $0.pixels.height == image.height })
            } catch {
                #expect(error is WebImageError, "\(error)")
            }
            _ = try? coder.readMetadata(data)
            _ = coder.isAnimated(data)
            if let source = try? coder.makeAnimatedSource(data, options: .default) {
                for index in 0..<min(source.frameCount, 4) { _ = try? source.frame(at: index) }
            }
        }
        for bytes in seeds {
            for end in stride(from: 0, to: bytes.count, by: max(1, bytes.count / 61)) { exercise(Data(bytes[..<end])) }
        }
        var generator = SeededRandom(seed: 0x1A11)
        for round in 0..<150 {
            var bytes = seeds[round % seeds.count]
            generator.mutate(&bytes)
            exercise(Data(bytes))
        }
    }
}
