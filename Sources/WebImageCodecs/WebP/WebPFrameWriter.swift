import CWebP
import Foundation
import WebImageCore

/// WebP frames one at a time (an ``AnimationFrameWriter``): a still image with `WebPEncode`,
/// an animation with libwebp's `WebPAnimEncoder`, which keeps the previous canvas and the
/// encoded frames, never the caller's frames.
///
/// Each frame is written with alpha unless the image has none or the frame is fully opaque;
/// the container stores the loop count in 16 bits; frame durations are whole milliseconds
/// (at least 1).
final class WebPFrameWriter: AnimationFrameWriter {
    private let width: Int
    private let height: Int
    private let loopCount: Int
    private let hasAlpha: Bool
    private var config: WebPConfig
    private var encoder: OpaquePointer?
    private var timestamp = 0

    /// - Throws: `encodingFailed` when a side exceeds WebP's 16383 pixels.
    init(size: PixelSize, loopCount: Int, hasAlpha: Bool, config: WebPConfig) throws {
        guard size.width <= Int(WEBP_MAX_DIMENSION), size.height <= Int(WEBP_MAX_DIMENSION) else {
            throw WebImageError.encodingFailed(reason: "\(size) exceeds WebP's 16383 pixel limit")
        }
        width = size.width
        height = size.height
        self.loopCount = loopCount
        self.hasAlpha = hasAlpha
        self.config = config
    }

    deinit {
        if let encoder { WebPAnimEncoderDelete(encoder) }
    }

    func encodeStill(_ pixels: PixelBuffer) throws -> Data {
        try WebPEncoding.encodeStill(pixels, hasAlpha: hasAlpha, config: &config)
    }

    private func failure(_ what: String) -> WebImageError {
        let detail = encoder.flatMap { WebPAnimEncoderGetError($0) }.map { String(cString: $0) } ?? ""
        return WebImageError.encodingFailed(reason: "WebP animation: \(what)\(detail.isEmpty ? "" : ": \(detail)")")
    }

    /// The animation encoder, made at the first frame.
    private func animationEncoder() throws -> OpaquePointer {
        if let encoder { return encoder }
        var encoderOptions = WebPAnimEncoderOptions()
        guard WebPAnimEncoderOptionsInit(&encoderOptions) != 0 else {
            throw WebImageError.encodingFailed(reason: "libwebp mux ABI mismatch")
        }
        encoderOptions.anim_params.loop_count = Int32(min(max(loopCount, 0), 65_535))
        guard let made = WebPAnimEncoderNew(Int32(width), Int32(height), &encoderOptions) else {
            throw WebImageError.encodingFailed(reason: "WebP: cannot create the animation encoder")
        }
        encoder = made
        return made
    }

    func addAnimationFrame(_ pixels: PixelBuffer, duration: Double) throws {
        let encoder = try animationEncoder()
        var picture = WebPPicture()
        guard WebPPictureInit(&picture) != 0 else {
            throw WebImageError.encodingFailed(reason: "libwebp encoder ABI mismatch")
        }
        defer { WebPPictureFree(&picture) }
        try WebPEncoding.importPixels(pixels, hasAlpha: hasAlpha, into: &picture)
        guard let start = Int32(exactly: timestamp) else {
            throw WebImageError.encodingFailed(reason: "WebP animation longer than \(Int32.max) ms")
        }
        guard WebPAnimEncoderAdd(encoder, &picture, start, &config) != 0 else {
            throw failure("adding a frame failed")
        }
        timestamp += WebPEncoding.milliseconds(duration)
    }

    func finishAnimation() throws -> Data {
        let encoder = try animationEncoder()
        guard let end = Int32(exactly: timestamp) else {
            throw WebImageError.encodingFailed(reason: "WebP animation longer than \(Int32.max) ms")
        }
        guard WebPAnimEncoderAdd(encoder, nil, end, nil) != 0 else {
            throw failure("closing the animation failed")
        }
        var output = WebPData()
        WebPDataInit(&output)
        defer { WebPDataClear(&output) }
        guard WebPAnimEncoderAssemble(encoder, &output) != 0, let bytes = output.bytes else {
            throw failure("assembling failed")
        }
        return Data(bytes: bytes, count: output.size)
    }
}

extension WebPCoder: AnimatedImageEncoding {
    /// A WebP encoder that hands each frame to libwebp as it is added (`WebPAnimEncoder` for two
    /// or more frames, a still image for one). Quality and lossless apply as in
    /// ``encode(_:format:options:)``.
    /// - Throws: `unsupportedFormat` for another format; `encodingFailed` when a side of the
    ///   output exceeds 16383 pixels.
    public func makeAnimatedEncoder(
        format: ImageFormat, frameSize: PixelSize, loopCount: Int, hasAlpha: Bool, options: EncodeOptions
    ) throws -> any AnimatedImageEncoder {
        guard format == .webp else {
            throw WebImageError.unsupportedFormat(format, reason: "WebPCoder encodes WebP only")
        }
        let output = FrameByFrameEncoder.outputSize(for: frameSize, options: options)
        let writer = try WebPFrameWriter(
            size: output, loopCount: loopCount, hasAlpha: hasAlpha,
            config: WebPEncoding.makeConfig(quality: options.clampedQuality, lossless: options.lossless, settings: options.webp))
        return FrameByFrameEncoder(
            writer: writer, frameSize: frameSize, outputSize: output, keepsAnimation: options.keepAnimation)
    }
}
