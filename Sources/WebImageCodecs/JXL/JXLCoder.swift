import CJXL
import Foundation
import WebImageCore

/// The JPEG XL decoder over libjxl 0.7: still images and animations, lossy and lossless,
/// alpha, high bit depths (scaled to 8 bits), the file's orientation.
///
/// - Pixels come out as 8-bit RGBA with straight alpha, in the file's colour space (no colour
///   management, as for the other formats).
/// - Limits are checked from the basic information before pixel memory is allocated, and for
///   an animation again before each further frame (SPEC C-6).
/// - The orientation is applied by default (result `.up`); with
///   ``/WebImageCore/DecodeOptions/applyOrientation`` off, pixels are as stored and it is
///   reported. Thumbnail sizes apply to the image as shown; they are resampled after decoding.
/// - An animation decodes to one composited frame per displayed frame with its duration
///   (browsers' short-delay rule applied) and its loop count. Frames are decoded in one pass:
///   there is no lazy animated source for JPEG XL.
/// - JPEG XL is not encoded.
///
/// The coder holds no state; every call creates its own libjxl decoder, single-threaded.
public struct JXLCoder: ImageCoder {
    /// The JPEG XL coder (it holds no state).
    public init() {}

    /// Whether `data` starts with a JPEG XL codestream or container signature.
    public func canDecode(_ data: Data) -> Bool {
        ImageFormat.detect(data) == .jxl
    }

    /// Decodes the image (every frame of an animation, only the first with `firstFrameOnly`).
    /// - Throws: ``/WebImageCore/WebImageError`` — `badImageData` or `imageTooLarge`.
    public func decode(_ data: Data, options: DecodeOptions) throws -> Image {
        let session = try JXLDecoderSession(data, events: JxlDecoderStatus(JXL_DEC_FRAME.rawValue | JXL_DEC_FULL_IMAGE.rawValue))
        var frames: [ImageFrame] = []
        var duration = 0.0
        var applied = ImageOrientation.up
        var target = PixelSize(width: 0, height: 0)
        decoding: while true {
            switch try session.next() {
            case JXL_DEC_BASIC_INFO:
                try options.limits.check(canvas: session.size)
                applied = options.applyOrientation ? session.orientation : .up
                let stored = session.size
                target = options.targetSize(
                    for: applied.swapsDimensions ? PixelSize(width: stored.height, height: stored.width) : stored)
            case JXL_DEC_FRAME:
                if options.firstFrameOnly && !frames.isEmpty { break decoding }
                if !frames.isEmpty { try options.limits.check(frames: frames.count + 1, of: session.size) }
                duration = session.isAnimation ? session.frameDuration() : 0
            case JXL_DEC_NEED_IMAGE_OUT_BUFFER:
                let upright = try session.decodeFrame().applying(applied)
                let pixels = upright.width == target.width && upright.height == target.height ? upright : upright.thumbnail(to: target)
                frames.append(ImageFrame(pixels: pixels, duration: duration))
            case JXL_DEC_SUCCESS:
                break decoding
            default:
                continue
            }
        }
        guard !frames.isEmpty else { throw WebImageError.badImageData(reason: "JPEG XL: no image in the file") }
        if frames.count == 1 { frames[0] = ImageFrame(pixels: frames[0].pixels, duration: 0) }
        return Image(
            frames: frames, scale: AVIFCoder.scale(options), orientation: options.applyOrientation ? .up : session.orientation,
            format: .jxl, loopCount: session.loopCount, hasAlpha: session.hasAlpha)
    }

    /// Reads size, orientation, alpha, loop count and the number of frames (from their headers,
    /// without decoding pixels).
    /// - Throws: `badImageData` when libjxl cannot read the file, `imageTooLarge` over a limit.
    public func readMetadata(_ data: Data) throws -> ImageMetadata {
        let session = try JXLDecoderSession(data, events: JXL_DEC_FRAME)
        var frameCount = 0
        counting: while true {
            switch try session.next() {
            case JXL_DEC_BASIC_INFO:
                try DecodeLimits.default.check(canvas: session.size)
            case JXL_DEC_FRAME:
                frameCount += 1
                if frameCount > DecodeLimits.default.maxFrameCount { break counting }
            case JXL_DEC_SUCCESS:
                break counting
            default:
                continue
            }
        }
        return ImageMetadata(
            format: .jxl, pixelSize: session.size, frameCount: max(1, frameCount), isAnimated: frameCount > 1,
            loopCount: frameCount > 1 ? session.loopCount : nil, orientation: session.orientation, hasAlpha: session.hasAlpha)
    }
}
