import Foundation
import WebImageCore

extension PNGCoder: AnimatedImageEncoding {
    /// `true` for ``/WebImageCore/ImageFormat/png``.
    public func canEncode(_ format: ImageFormat) -> Bool { format == .png }

    /// Encodes `image` as PNG, or as APNG when it has several frames and
    /// ``/WebImageCore/EncodeOptions/keepAnimation`` is on (every frame full-canvas, durations in
    /// milliseconds, the image's loop count).
    ///
    /// The image's orientation is applied: files are written upright, without an `eXIf` chunk.
    ///
    /// PNG is lossless: ``/WebImageCore/EncodeOptions/quality`` and ``/WebImageCore/EncodeOptions/lossless`` are ignored.
    /// Alpha is written (RGBA) when the image has alpha and some pixel is not opaque;
    /// otherwise RGB. A 16-bit (``/WebImageCore/PixelFormat/rgba16``) still is written at 16 bits
    /// a channel; an animation at 8. A CICP colour description other than sRGB is written as a
    /// `cICP` chunk (with an equivalent ICC profile where one exists). ``/WebImageCore/EncodeOptions/maxPixelSize`` shrinks the image first (aspect ratio
    /// kept). With ``/WebImageCore/EncodeOptions/maxFileSize``, a result that is too large is re-encoded at
    /// 3/4 of the size per step (at most 8 steps); the smallest result is returned if none fits.
    ///
    /// - Throws: ``/WebImageCore/WebImageError/unsupportedFormat(_:reason:)`` for other formats,
    ///   ``/WebImageCore/WebImageError/encodingFailed(reason:)`` when libspng fails.
    public func encode(_ image: Image, format: ImageFormat, options: EncodeOptions) throws -> Data {
        guard format == .png else {
            throw WebImageError.unsupportedFormat(format, reason: "PNGCoder encodes PNG only")
        }
        var data = try encodeUntagged(image, options: options)
        // 8-bit outputs with an SDR description stay as before (an ICC profile only).
        if case .cicp(let cicp)? = image.colorProfile?.kind, !cicp.isSRGB, cicp.isHDR || image.pixelFormat == .rgba16 {
            data = PNGCICPChunk.embed(cicp, in: data)
        }
        guard let profile = EmbeddedProfile.iccData(for: image) else { return data }
        return PNGICCChunk.embed(profile, in: data)
    }

    /// The PNG or APNG without a colour profile.
    private func encodeUntagged(_ image: Image, options: EncodeOptions) throws -> Data {
        var frames = options.preparedImage(image, keepingHighBitDepth: true).frames
        // APNG frames are written at 8 bits; a still keeps 16 bits.
        if frames.count > 1 { frames = frames.map { ImageFrame(pixels: $0.pixels.convertedToRGBA8(), duration: $0.duration) } }
        let alpha = image.hasAlpha && frames.contains { !$0.pixels.isFullyOpaque() }
        var best = try Self.encode(frames, alpha: alpha, loopCount: image.loopCount, settings: options.png)
        guard let maxBytes = options.maxFileSize, best.count > maxBytes else { return best }
        for _ in 0..<8 {
            let current = frames[0].pixels
            let size = PixelSize(width: max(1, current.width * 3 / 4), height: max(1, current.height * 3 / 4))
            if size.width == current.width && size.height == current.height { break }
            frames = Self.resized(frames, to: size)
            let data = try Self.encode(frames, alpha: alpha, loopCount: image.loopCount, settings: options.png)
            if data.count < best.count { best = data }
            if data.count <= maxBytes { break }
        }
        return best
    }

    private static func resized(_ frames: [ImageFrame], to size: PixelSize) -> [ImageFrame] {
        frames.map { frame in
            if frame.pixels.width == size.width && frame.pixels.height == size.height { return frame }
            return ImageFrame(pixels: frame.pixels.downscaled(to: size), duration: frame.duration)
        }
    }

    /// Every frame through ``APNGFrameWriter``, as the frame-by-frame encoder does; a still with
    /// interlacing or quantisation asked for (`settings`) through libspng's whole-image encode.
    /// An animation gets them too: every frame Adam7-interlaced, and one palette for all the
    /// frames (APNG has one `PLTE`), made by the still's quantiser from every frame's pixels.
    private static func encode(_ frames: [ImageFrame], alpha: Bool, loopCount: Int, settings: PNGEncodeSettings) throws -> Data {
        if frames.count == 1, settings.interlaced || settings.quantize {
            return Data(try SPNGEncoding.encode(frames[0].pixels, alpha: alpha, settings: settings))
        }
        let palette = frames.count > 1 && settings.quantize ? try sharedPalette(frames, maxColors: settings.quantizationColors) : nil
        let image = Image(frames: frames, loopCount: loopCount, hasAlpha: alpha)
        let writer = APNGFrameWriter(
            alpha: alpha, loopCount: loopCount, interlaced: frames.count > 1 && settings.interlaced, palette: palette)
        return try FrameByFrameEncoder.encode(image, with: writer, keepingHighBitDepth: frames.count == 1)
    }

    /// One palette for every frame of an animation: the frames' RGBA8 pixels one after the other,
    /// quantised together (its `indices` hold each frame's in turn).
    static func sharedPalette(_ frames: [ImageFrame], maxColors: Int) throws -> GIFQuantizer.Result {
        let size = frames[0].pixels
        guard frames.allSatisfy({ $0.pixels.width == size.width && $0.pixels.height == size.height }) else {
            throw WebImageError.encodingFailed(reason: "APNG: a palette needs every frame at the canvas size")
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(frames.count * size.width * size.height * 4)
        for frame in frames { bytes += frame.pixels.convertedToRGBA8().bytes }
        let all = PixelBuffer(width: size.width, height: size.height * frames.count, bytes: bytes)
        return GIFQuantizer.quantize(all, maxColors: maxColors)
    }

    /// A PNG encoder that compresses each frame as it is added and keeps only the compressed
    /// chunks (APNG for two or more frames, a plain PNG for one). The file is RGBA when
    /// `hasAlpha`, else RGB: the whole-image encode decides this from the pixels (alpha only
    /// when some pixel is not opaque), which a frame-by-frame encoder cannot know in advance.
    /// - Throws: `unsupportedFormat` for another format.
    public func makeAnimatedEncoder(
        format: ImageFormat, frameSize: PixelSize, loopCount: Int, hasAlpha: Bool, options: EncodeOptions
    ) throws -> any AnimatedImageEncoder {
        guard format == .png else {
            throw WebImageError.unsupportedFormat(format, reason: "PNGCoder encodes PNG only")
        }
        let output = FrameByFrameEncoder.outputSize(for: frameSize, options: options)
        return FrameByFrameEncoder(
            writer: APNGFrameWriter(alpha: hasAlpha, loopCount: loopCount), frameSize: frameSize, outputSize: output,
            keepsAnimation: options.keepAnimation)
    }
}
