import CJXL
import Foundation
import WebImageCore

/// The JPEG XL decoder over libjxl 0.7: still images and animations, lossy and lossless,
/// alpha, high bit depths (scaled to 8 bits), the file's orientation.
///
/// - Pixels come out as 8-bit RGBA with straight alpha, converted to sRGB by default (G-2);
///   PQ and HLG are decoded at 16 bits and tone-mapped to SDR sRGB (BT.2408; the HDR article).
/// - Limits are checked from the basic information before pixel memory is allocated, and for
///   an animation again before each further frame (SPEC C-6).
/// - The orientation is applied by default (result `.up`); with
///   ``/WebImageCore/DecodeOptions/applyOrientation`` off, pixels are as stored and it is
///   reported. Thumbnail sizes apply to the image as shown; they are resampled after decoding.
/// - An animation decodes to one composited frame per displayed frame with its duration
///   (browsers' short-delay rule applied) and its loop count; ``JXLAnimatedImageSource`` decodes
///   frames on request instead.
/// - Encoding: quality 0…1 onto libjxl's distance, lossless, alpha, effort
///   (``/WebImageCore/EncodeOptions/jxlEffort``), animations with every frame's duration, and
///   ``recompressJPEG(_:effort:)``: a JPEG file recompressed losslessly, the original bytes
///   recoverable.
///
/// The coder holds no state; every call creates its own libjxl decoder, single-threaded.
public struct JXLCoder: AnimatedImageDecoding {
    /// The JPEG XL coder (it holds no state).
    public init() {}

    /// Whether `data` starts with a JPEG XL codestream or container signature.
    public func canDecode(_ data: Data) -> Bool {
        ImageFormat.detect(data) == .jxl
    }

    /// Decodes the image (every frame of an animation, only the first with `firstFrameOnly`).
    /// - Throws: ``/WebImageCore/WebImageError`` — `badImageData` or `imageTooLarge`.
    public func decode(_ data: Data, options: DecodeOptions) throws -> Image {
        let session = try JXLDecoderSession(
            data, events: JxlDecoderStatus(JXL_DEC_COLOR_ENCODING.rawValue | JXL_DEC_FRAME.rawValue | JXL_DEC_FULL_IMAGE.rawValue))
        var profile: ColorProfile?
        var hdr: HDRToSDRTransform?
        var frames: [ImageFrame] = []
        var duration = 0.0
        var output: FrameOutput?
        // More than 8 bits asked for and stored: RGBA16 with the colour description kept (H-1).
        var wide = false
        decoding: while true {
            switch try session.next() {
            case JXL_DEC_BASIC_INFO:
                try options.limits.check(canvas: session.size)
                output = FrameOutput(stored: session.size, orientation: session.orientation, options: options)
                wide = options.decodedPixelFormat == .rgba16 && session.isHighBitDepth
            case JXL_DEC_COLOR_ENCODING:
                if options.colorManagement != .ignore { profile = session.colorProfile() }
                hdr = HDRToSDR.transform(for: profile, options: options, bits: 16)
            case JXL_DEC_FRAME:
                if options.firstFrameOnly && !frames.isEmpty { break decoding }
                if !frames.isEmpty { try options.limits.check(frames: frames.count + 1, of: session.size) }
                duration = session.isAnimation ? session.frameDuration() : 0
            case JXL_DEC_NEED_IMAGE_OUT_BUFFER:
                guard let output else { throw WebImageError.badImageData(reason: "JPEG XL: pixels before the basic information") }
                if wide {
                    frames.append(ImageFrame(pixels: output.finish(try session.decodeFrame16(limits: options.limits)), duration: duration))
                    continue
                }
                // PQ/HLG is decoded at 16 bits and tone-mapped to SDR straight from there (H-4).
                let pixels = try hdr.map { try session.decodeFrame(toneMapping: $0, limits: options.limits) } ?? session.decodeFrame()
                frames.append(ImageFrame(pixels: output.finish(pixels), duration: duration))
            case JXL_DEC_SUCCESS:
                break decoding
            default:
                continue
            }
        }
        guard !frames.isEmpty else { throw WebImageError.badImageData(reason: "JPEG XL: no image in the file") }
        if frames.count == 1 { frames[0] = ImageFrame(pixels: frames[0].pixels, duration: 0) }
        let image = Image(
            frames: frames, scale: options.imageScale, orientation: options.applyOrientation ? .up : session.orientation,
            format: .jxl, loopCount: session.loopCount, hasAlpha: session.hasAlpha)
        if wide { return image.replacing(colorProfile: profile) }
        return ColorConversion.finish(image, profile: hdr == nil ? profile : nil, options: options)
    }

    /// Whether `format` is JPEG XL.
    public func canEncode(_ format: ImageFormat) -> Bool {
        format == .jxl
    }

    /// Encodes `image` as JPEG XL (an animation when it has several frames and the options keep
    /// them), its orientation applied.
    /// - Throws: `unsupportedFormat` for another format, `encodingFailed` when libjxl fails.
    public func encode(_ image: Image, format: ImageFormat, options: EncodeOptions) throws -> Data {
        let image = JXLHighBitDepth.keeps(image, options: options) ? image : EightBitOutput.prepare(image)
        guard format == .jxl else { throw WebImageError.unsupportedFormat(format, reason: "JXLCoder encodes JPEG XL only") }
        return try JXLEncoding.encode(image, options: options)
    }

    /// `jpeg` recompressed losslessly into JPEG XL with libjxl's JPEG reconstruction: the DCT
    /// coefficients are re-coded (typically about a fifth smaller) and the file keeps what
    /// reconstructs the original JPEG byte for byte (`djxl out.jxl out.jpg`, or
    /// ``reconstructJPEG(_:maxBytes:)``). `effort` 1…9 (`nil`: libjxl's 7).
    /// - Throws: `encodingFailed` when libjxl cannot take the JPEG as it is (for example
    ///   arithmetic coding or some progressive scan scripts).
    public func recompressJPEG(_ jpeg: Data, effort: Int? = nil) throws -> Data {
        guard ImageFormat.detect(jpeg) == .jpeg else {
            throw WebImageError.encodingFailed(reason: "JPEG XL: lossless recompression needs a JPEG")
        }
        return try JXLEncoding.recompress(jpeg: jpeg, effort: effort)
    }

    /// Whether the file is an animation of more than one frame (counted from frame headers,
    /// without decoding pixels).
    public func isAnimated(_ data: Data) -> Bool {
        (try? readMetadata(data))?.isAnimated ?? false
    }

    /// Opens the file for lazy, sequential frame access (a still image is a one-frame source).
    /// - Throws: `badImageData` or `imageTooLarge`.
    public func makeAnimatedSource(_ data: Data, options: DecodeOptions) throws -> any AnimatedImageSource {
        try JXLAnimatedImageSource(data, options: options)
    }

    /// Reads size, orientation, alpha, loop count and the number of frames (from their headers,
    /// without decoding pixels).
    /// - Throws: `badImageData` when libjxl cannot read the file, `imageTooLarge` over a limit.
    public func readMetadata(_ data: Data) throws -> ImageMetadata {
        let session = try JXLDecoderSession(data, events: JxlDecoderStatus(JXL_DEC_COLOR_ENCODING.rawValue | JXL_DEC_FRAME.rawValue))
        var profile: ColorProfile?
        var frameCount = 0
        counting: while true {
            switch try session.next() {
            case JXL_DEC_BASIC_INFO:
                try DecodeLimits.default.check(canvas: session.size)
            case JXL_DEC_COLOR_ENCODING:
                profile = session.colorProfile()
            case JXL_DEC_FRAME:
                frameCount += 1
                if frameCount > DecodeLimits.default.maxFrameCount { break counting }
            case JXL_DEC_SUCCESS:
                break counting
            default:
                continue
            }
        }
        var metadata = ImageMetadata(
            format: .jxl, pixelSize: session.size, frameCount: max(1, frameCount), isAnimated: frameCount > 1,
            loopCount: frameCount > 1 ? session.loopCount : nil, orientation: session.orientation, hasAlpha: session.hasAlpha,
            colorProfile: profile)
        metadata.bitDepth = Int(session.info.bits_per_sample)
        return metadata
    }
}

/// The frames of a JPEG XL animation, decoded on request: forward is one frame's work (the
/// frames in between are decoded too, as later frames may build on them); going back starts
/// again from the beginning.
public final class JXLAnimatedImageSource: AnimatedImageSource {
    private let data: Data
    private let output: FrameOutput
    private let durations: [Double]
    private var session: JXLDecoderSession
    private var nextIndex = 0

    /// Reads the frame headers of `data` (no pixels yet; limits checked).
    /// - Throws: `badImageData` or `imageTooLarge`.
    public init(_ data: Data, options: DecodeOptions = .default) throws {
        let probe = try JXLDecoderSession(data, events: JXL_DEC_FRAME)
        var durations: [Double] = []
        reading: while true {
            switch try probe.next() {
            case JXL_DEC_BASIC_INFO:
                try options.limits.check(canvas: probe.size)
            case JXL_DEC_FRAME:
                try options.limits.check(frames: durations.count + 1, of: probe.size)
                durations.append(probe.isAnimation ? probe.frameDuration() : 0)
            case JXL_DEC_SUCCESS:
                break reading
            default:
                continue
            }
        }
        guard !durations.isEmpty else { throw WebImageError.badImageData(reason: "JPEG XL: no image in the file") }
        self.data = data
        self.durations = durations
        loopCount = probe.loopCount
        output = FrameOutput(stored: probe.size, orientation: probe.orientation, options: options)
        session = try JXLDecoderSession(data, events: JxlDecoderStatus(JXL_DEC_FRAME.rawValue | JXL_DEC_FULL_IMAGE.rawValue))
    }

    /// The size of the frames this source returns (as shown, or the thumbnail size).
    public var canvasSize: PixelSize { output.size }
    /// Number of frames in the file.
    public var frameCount: Int { durations.count }
    /// The animation's loop count (0 = forever).
    public let loopCount: Int

    /// The duration of frame `index` in seconds, with the browsers' short-delay rule.
    public func duration(ofFrame index: Int) -> Double {
        durations.indices.contains(index) && durations.count > 1 ? durations[index] : 0
    }

    /// Frame `index`, turned and sized per the options.
    /// - Throws: `badImageData` when `index` is out of range or the frame data is corrupt.
    public func frame(at index: Int) throws -> PixelBuffer {
        guard durations.indices.contains(index) else {
            throw WebImageError.badImageData(reason: "frame \(index) out of range 0..<\(frameCount)")
        }
        if index < nextIndex {
            session = try JXLDecoderSession(data, events: JxlDecoderStatus(JXL_DEC_FRAME.rawValue | JXL_DEC_FULL_IMAGE.rawValue))
            nextIndex = 0
        }
        do {
            while true {
                switch try session.next() {
                case JXL_DEC_NEED_IMAGE_OUT_BUFFER:
                    let pixels = try session.decodeFrame()
                    nextIndex += 1
                    if nextIndex - 1 == index { return output.finish(pixels) }
                case JXL_DEC_SUCCESS:
                    throw WebImageError.badImageData(reason: "JPEG XL: frame \(index) is missing")
                default:
                    continue
                }
            }
        } catch {
            nextIndex = Int.max  // the session is spent: the next request starts a new one
            throw error
        }
    }
}
