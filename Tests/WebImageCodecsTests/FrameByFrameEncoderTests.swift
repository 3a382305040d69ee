import Foundation
import Testing
import WebImageCodecs
import WebImageCore
import WebImageTesting

/// SPEC C-5, R-3: the animated encoders take frames one at a time, and the whole-image encode
/// is the same encoder fed every frame.
@Suite("Frame-by-frame encoding (R-3)")
struct FrameByFrameEncoderTests {
    /// An 8×6 frame of one flat colour per frame (exact in every palette and lossless codec).
    static func frame(_ index: Int, width: Int = 8, height: Int = 6) -> PixelBuffer {
        PixelBuffer.make(width: width, height: height) { out in
            for p in 0..<(width * height) {
                out[p * 4] = UInt8(40 * index + 10)
                out[p * 4 + 1] = UInt8((p * 5 + index * 30) % 256)
                out[p * 4 + 2] = UInt8(200 - 20 * index)
                out[p * 4 + 3] = 255
            }
        }
    }

    static let durations = [0.1, 0.25, 0.5]

    static func animation(loopCount: Int = 3) -> Image {
        Image(
            frames: durations.indices.map { ImageFrame(pixels: frame($0), duration: durations[$0]) },
            loopCount: loopCount, hasAlpha: false)
    }

    /// The lossless encoders: GIF (few colours), PNG, WebP lossless.
    static let losslessFormats: [ImageFormat] = [.gif, .png, .webp]

    static func options(for format: ImageFormat) -> EncodeOptions {
        EncodeOptions(lossless: format == .webp)
    }

    static func encoder(_ format: ImageFormat) throws -> any AnimatedImageEncoding {
        try #require(CodersManager.shared.animatedEncoder(for: format))
    }

    @Test("Given three frames added one at a time, when finished and decoded, then frames, pixels, durations and loop count round-trip",
        arguments: losslessFormats)
    func roundTrip(format: ImageFormat) throws {
        let encoder = try Self.encoder(format).makeAnimatedEncoder(
            format: format, frameSize: PixelSize(width: 8, height: 6), loopCount: 3, hasAlpha: false,
            options: Self.options(for: format))
        for (index, duration) in Self.durations.enumerated() { try encoder.add(Self.frame(index), duration: duration) }
        let data = try encoder.finish()
        #expect(ImageFormat.detect(data) == format)
        let decoded = try CodersManager.shared.decode(data, options: .default)
        #expect(decoded.frames.count == 3)
        #expect(decoded.loopCount == 3)
        for (index, frame) in decoded.frames.enumerated() {
            #expect(frame.pixels.bytes == Self.frame(index).bytes, "frame \(index)")
            #expect(abs(frame.duration - Self.durations[index]) < 0.001, "frame \(index): \(frame.duration)")
        }
    }

    @Test("Given an animation, when encoded whole and frame by frame, then the files are identical (one implementation)",
        arguments: losslessFormats + [.avif])
    func wholeEqualsFrameByFrame(format: ImageFormat) throws {
        let image = Self.animation()
        let options = Self.options(for: format)
        let whole = try CodersManager.shared.encode(image, format: format, options: options)
        let encoder = try Self.encoder(format).makeAnimatedEncoder(
            format: format, frameSize: image.pixelSize, loopCount: image.loopCount, hasAlpha: false, options: options)
        for frame in image.frames { try encoder.add(frame.pixels, duration: frame.duration) }
        #expect(try encoder.finish() == whole)
    }

    @Test("Given one frame, when finished, then a still image is written", arguments: losslessFormats)
    func oneFrameIsStill(format: ImageFormat) throws {
        let encoder = try Self.encoder(format).makeAnimatedEncoder(
            format: format, frameSize: PixelSize(width: 8, height: 6), loopCount: 0, hasAlpha: false,
            options: Self.options(for: format))
        try encoder.add(Self.frame(1), duration: 0.3)
        let data = try encoder.finish()
        let metadata = try CodersManager.shared.readMetadata(data)
        #expect(metadata.isAnimated == false)
        #expect(try CodersManager.shared.decode(data, options: .default).pixels.bytes == Self.frame(1).bytes)
    }

    @Test("Given maxPixelSize and no keepAnimation, when frames are added, then each is fitted and only the first is written")
    func optionsApply() throws {
        var options = EncodeOptions(maxPixelSize: PixelSize(width: 4, height: 4))
        let fitted = try Self.encoder(.png).makeAnimatedEncoder(
            format: .png, frameSize: PixelSize(width: 8, height: 6), loopCount: 0, hasAlpha: false, options: options)
        for index in 0..<3 { try fitted.add(Self.frame(index), duration: 0.1) }
        let small = try CodersManager.shared.decode(try fitted.finish(), options: .default)
        #expect(small.pixelSize == PixelSize(width: 4, height: 3))
        #expect(small.frames.count == 3)

        options = EncodeOptions(keepAnimation: false)
        let first = try Self.encoder(.gif).makeAnimatedEncoder(
            format: .gif, frameSize: PixelSize(width: 8, height: 6), loopCount: 0, hasAlpha: false, options: options)
        for index in 0..<3 { try first.add(Self.frame(index), duration: 0.1) }
        let still = try CodersManager.shared.decode(try first.finish(), options: .default)
        #expect(still.frames.count == 1)
        #expect(still.pixels.bytes == Self.frame(0).bytes)
    }

    @Test("Given a frame of another size, a frame after finish, or no frame, then the encoder says so")
    func misuse() throws {
        let encoder = try Self.encoder(.webp).makeAnimatedEncoder(
            format: .webp, frameSize: PixelSize(width: 8, height: 6), loopCount: 0, hasAlpha: false, options: .default)
        try encoder.add(Self.frame(0), duration: 0.1)
        #expect(throws: WebImageError.self) { try encoder.add(Self.frame(1, width: 6, height: 8), duration: 0.1) }
        _ = try encoder.finish()
        #expect(throws: WebImageError.self) { try encoder.add(Self.frame(1), duration: 0.1) }
        let empty = try Self.encoder(.gif).makeAnimatedEncoder(
            format: .gif, frameSize: PixelSize(width: 8, height: 6), loopCount: 0, hasAlpha: false, options: .default)
        #expect(throws: WebImageError.self) { try empty.finish() }
        #expect(throws: WebImageError.self) {
            try GIFCoder().makeAnimatedEncoder(
                format: .png, frameSize: PixelSize(width: 8, height: 6), loopCount: 0, hasAlpha: false, options: .default)
        }
    }

    @Test("Given an animated GIF, when converted frame by frame through the coders, then frames, durations and a per-frame transform arrive",
        arguments: [ImageFormat.gif, .png, .webp])
    func convertFrameByFrame(format: ImageFormat) throws {
        let gif = try CodersManager.shared.encode(Self.animation(), format: .gif, options: .default)
        let flip = FlipTransformer(horizontal: true, vertical: false)
        let converted = try #require(
            try CodersManager.shared.convertFrameByFrame(
                gif, to: format, decodeOptions: .default, encodeOptions: Self.options(for: format), transformer: flip))
        #expect(converted.frameCount == 3)
        #expect(converted.pixelSize == PixelSize(width: 8, height: 6))
        let decoded = try CodersManager.shared.decode(converted.data, options: .default)
        let expected = try #require(flip.transform(Self.animation(), key: ""))
        #expect(decoded.frames.count == 3)
        for index in 0..<3 {
            #expect(decoded.frames[index].pixels.bytes == expected.frames[index].pixels.bytes, "frame \(index)")
            #expect(abs(decoded.frames[index].duration - Self.durations[index]) < 0.001)
        }
    }

    @Test("Given a still image, the first frame only, or a file-size target, then frame-by-frame conversion does not apply")
    func convertFrameByFrameFallsBack() throws {
        let still = try CodersManager.shared.encode(Image(pixels: Self.frame(0), hasAlpha: false), format: .png, options: .default)
        #expect(try CodersManager.shared.convertFrameByFrame(still, to: .webp, decodeOptions: .default, encodeOptions: .default) == nil)
        let gif = try CodersManager.shared.encode(Self.animation(), format: .gif, options: .default)
        var firstOnly = DecodeOptions()
        firstOnly.firstFrameOnly = true
        #expect(try CodersManager.shared.convertFrameByFrame(gif, to: .webp, decodeOptions: firstOnly, encodeOptions: .default) == nil)
        #expect(
            try CodersManager.shared.convertFrameByFrame(
                gif, to: .webp, decodeOptions: .default, encodeOptions: EncodeOptions(maxFileSize: 10_000)) == nil)
    }
}

@Suite("APNG frames as changed regions")
struct APNGChangedRegionTests {
    /// 64×64 of noise (incompressible), with frame `index` changing pixel `index` (alternately
    /// to another colour and to transparent).
    static func frame(_ index: Int) -> PixelBuffer {
        var random = SeededRandom(seed: 7)
        var bytes = (0..<(64 * 64 * 4)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        for p in 0..<(64 * 64) { bytes[p * 4 + 3] = 255 }
        for changed in 1...max(1, index) where index > 0 {
            let o = (changed * 97 % (64 * 64)) * 4
            bytes[o + 3] = changed % 2 == 0 ? 0 : 255
            bytes[o] = 7
        }
        return PixelBuffer(width: 64, height: 64, bytes: bytes)
    }

    @Test("Given frames that differ from the one before in a few pixels (some turning transparent), when encoded as APNG, then every decoded frame equals the frame added and the file holds only the changes")
    func changedRegions() throws {
        let frames = (0..<10).map { ImageFrame(pixels: Self.frame($0), duration: 0.1) }
        let data = try PNGCoder().encode(Image(frames: frames, loopCount: 0, hasAlpha: true), format: .png, options: .default)
        let still = try PNGCoder().encode(Image(pixels: Self.frame(0), hasAlpha: true), format: .png, options: .default)
        let decoded = try PNGCoder().decode(data, options: .default)
        #expect(decoded.frames.count == 10)
        for index in 0..<10 {
            #expect(decoded.frames[index].pixels.bytes == Self.frame(index).bytes, "frame \(index)")
        }
        // Ten full frames of noise would be ten times the still image.
        #expect(data.count < still.count * 2, "\(data.count) bytes; one frame is \(still.count)")
    }
}

@Suite("GIF frames as changed regions")
struct GIFChangedRegionTests {
    static let side = 16
    static let clear = RGBA(r: 0, g: 0, b: 0, a: 0)

    static func buffer(_ pixels: [RGBA]) -> PixelBuffer {
        PixelBuffer(width: side, height: side, bytes: pixels.flatMap { [$0.r, $0.g, $0.b, $0.a] })
    }

    /// Frames that change a little, gain opaque pixels, lose them (a pixel turning
    /// transparent), stay the same, and end fully transparent.
    static func frames() -> [PixelBuffer] {
        var pixels = [RGBA](repeating: RGBA(r: 200, g: 40, b: 40), count: side * side)
        for y in 2..<4 { for x in 2..<4 { pixels[y * side + x] = clear } }
        var frames = [buffer(pixels)]
        pixels[10 * side + 10] = RGBA(r: 0, g: 0, b: 255)
        frames.append(buffer(pixels))
        for y in 2..<4 { for x in 2..<4 { pixels[y * side + x] = RGBA(r: 0, g: 255, b: 0) } }
        frames.append(buffer(pixels))
        pixels[5 * side + 5] = clear
        frames.append(buffer(pixels))
        frames.append(buffer(pixels))
        pixels[0] = RGBA(r: 9, g: 9, b: 9)
        frames.append(buffer(pixels))
        pixels = [RGBA](repeating: clear, count: side * side)
        pixels[side * side - 1] = RGBA(r: 1, g: 2, b: 3)
        frames.append(buffer(pixels))
        pixels[side * side - 1] = clear
        frames.append(buffer(pixels))
        return frames
    }

    @Test("Given frames whose pixels change, turn opaque and turn transparent, when encoded as GIF, then every decoded frame equals the frame added")
    func transparencyTransitions() throws {
        let source = Self.frames()
        let image = Image(frames: source.map { ImageFrame(pixels: $0, duration: 0.1) }, loopCount: 0, hasAlpha: true)
        let decoded = try GIFCoder().decode(try GIFCoder().encode(image, format: .gif, options: .default), options: .default)
        #expect(decoded.frames.count == source.count)
        for (index, frame) in decoded.frames.enumerated() {
            #expect(frame.pixels.bytes == source[index].bytes, "frame \(index)")
        }
    }

    @Test("Given 30 frames of 64×64 that each change one pixel, when encoded as GIF, then the file holds only the changes and decodes exactly")
    func smallChanges() throws {
        var random = SeededRandom(seed: 3)
        var pixels = (0..<(64 * 64)).flatMap { _ -> [UInt8] in
            let value = Int(random.next() % 216)
            return [UInt8(value / 36 * 51), UInt8(value / 6 % 6 * 51), UInt8(value % 6 * 51), 255]
        }
        var frames: [PixelBuffer] = []
        for index in 0..<30 {
            pixels[index * 131 % (64 * 64) * 4] ^= 0x80
            frames.append(PixelBuffer(width: 64, height: 64, bytes: pixels))
        }
        let image = Image(frames: frames.map { ImageFrame(pixels: $0, duration: 0.05) }, loopCount: 0, hasAlpha: false)
        let data = try GIFCoder().encode(image, format: .gif, options: .default)
        let still = try GIFCoder().encode(Image(pixels: frames[0], hasAlpha: false), format: .gif, options: .default)
        // 30 whole frames would be 30 times the still image; the first and last are whole.
        #expect(data.count < still.count * 4, "\(data.count) bytes; one frame is \(still.count)")
        let decoded = try GIFCoder().decode(data, options: .default)
        for (index, frame) in decoded.frames.enumerated() {
            #expect(frame.pixels.bytes == frames[index].bytes, "frame \(index)")
        }
    }
}
