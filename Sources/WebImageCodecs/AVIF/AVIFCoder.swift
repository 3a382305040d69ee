import CAVIF
import Foundation
import WebImageCore

/// The AVIF coder over libavif (SPEC C-3's later step): decodes still images and image
/// sequences (animated AVIF), 8-, 10- and 12-bit sources, alpha; encodes 8-bit AVIF.
///
/// - Pixels come out as 8-bit RGBA with straight alpha; higher bit depths are scaled down by
///   libavif's YUV→RGB conversion. PQ and HLG sources are converted at 16 bits and tone-mapped
///   to SDR sRGB (BT.2408; the HDR article), unless colour descriptions are ignored.
/// - Limits are checked from the container before pixel memory is allocated, and the AV1
///   decoder is given the pixel limit too (SPEC C-6).
/// - Thumbnails decode at full size and are then resampled (AV1 has no scaled decode).
/// - An image sequence decodes to one frame per image with its duration (browsers' short-delay
///   rule applied); it loops forever (libavif 0.11 does not read a repetition count).
/// - The container's `irot`/`imir` properties are applied as the equivalent EXIF orientation
///   (result `.up`); with ``/WebImageCore/DecodeOptions/applyOrientation`` off, pixels are as
///   coded and the orientation is reported. Thumbnail sizes apply to the image as shown.
/// - Encoding (libaom through libavif): quality 0…1 onto the AV1 quantizer, lossless (4:4:4,
///   identity matrix, exact), alpha, `maxPixelSize`, `maxFileSize`, image sequences with
///   frame durations; the image's orientation is applied (no transform properties written).
///
/// The coder holds no state; every call creates its own libavif decoder or encoder.
public struct AVIFCoder: AnimatedImageDecoding {
    /// The AVIF coder (it holds no state).
    public init() {}

    /// Whether `data` starts with an AVIF `ftyp` box.
    public func canDecode(_ data: Data) -> Bool {
        ImageFormat.detect(data) == .avif
    }

    /// Decodes every image of the file (only the first with `firstFrameOnly`).
    /// - Throws: ``/WebImageCore/WebImageError`` — `badImageData` or `imageTooLarge`.
    public func decode(_ data: Data, options: DecodeOptions) throws -> Image {
        let handle = try AVIFDecoderHandle(data, limits: options.limits)
        let output = FrameOutput(stored: handle.canvasSize, orientation: handle.orientation, options: options)
        let count = options.firstFrameOnly ? 1 : handle.frameCount
        let described = options.colorManagement == .ignore ? nil : handle.colorProfile
        if options.decodedPixelFormat == .rgba16, handle.storedDepth > 8 {
            return try decodeHighBitDepth(handle, output: output, count: count, profile: described, options: options)
        }
        // PQ/HLG is decoded at 16 bits and tone-mapped to SDR sRGB straight from there (H-4).
        let hdr = HDRToSDR.transform(for: described, options: options, bits: 16)
        var frames: [ImageFrame] = []
        frames.reserveCapacity(count)
        for index in 0..<count {
            let pixels = output.finish(try handle.frame(at: index, hdr: hdr))
            frames.append(ImageFrame(pixels: pixels, duration: count > 1 ? handle.duration(ofFrame: index) : 0))
        }
        let image = Image(
            frames: frames, scale: options.imageScale, orientation: output.reportedOrientation, format: .avif, loopCount: 0,
            hasAlpha: handle.hasAlpha)
        return ColorConversion.finish(image, profile: hdr == nil ? described : nil, options: options)
    }

    /// Whether `format` is AVIF.
    public func canEncode(_ format: ImageFormat) -> Bool {
        format == .avif
    }

    /// Encodes `image` as AVIF (an image sequence when it has several frames and the options
    /// keep them), its orientation applied.
    /// - Throws: `unsupportedFormat` for another format, `encodingFailed` when libavif fails.
    public func encode(_ image: Image, format: ImageFormat, options: EncodeOptions) throws -> Data {
        guard format == .avif else { throw WebImageError.unsupportedFormat(format, reason: "AVIFCoder encodes AVIF only") }
        return try AVIFEncoding.encode(image, options: options)
    }

    /// Reads size, alpha and frame count from the container, without decoding pixels.
    /// - Throws: `badImageData` when libavif cannot parse the container, `imageTooLarge` over a limit.
    public func readMetadata(_ data: Data) throws -> ImageMetadata {
        let handle = try AVIFDecoderHandle(data, limits: .default)
        var metadata = ImageMetadata(
            format: .avif, pixelSize: handle.canvasSize, orientation: handle.orientation, hasAlpha: handle.hasAlpha,
            colorProfile: handle.colorProfile)
        metadata.frameCount = handle.frameCount
        metadata.bitDepth = handle.decoderImage.map { Int($0.pointee.depth) }
        metadata.isAnimated = handle.frameCount > 1
        metadata.loopCount = handle.frameCount > 1 ? 0 : nil
        return metadata
    }

    /// Whether the file is an image sequence of more than one image.
    public func isAnimated(_ data: Data) -> Bool {
        ((try? AVIFDecoderHandle(data, limits: .default))?.frameCount ?? 1) > 1
    }

    /// Opens the file for lazy, sequential frame access (a still image is a one-frame source).
    /// - Throws: `badImageData` or `imageTooLarge`.
    public func makeAnimatedSource(_ data: Data, options: DecodeOptions) throws -> any AnimatedImageSource {
        try AVIFAnimatedImageSource(data, options: options)
    }
}

/// The frames of an AVIF image sequence, decoded one at a time on request.
public final class AVIFAnimatedImageSource: AnimatedImageSource {
    private let handle: AVIFDecoderHandle
    private let output: FrameOutput
    private let hdr: HDRToSDRTransform?

    /// Parses `data`; frames are decoded by ``frame(at:)``.
    /// - Throws: `badImageData` or `imageTooLarge`.
    public init(_ data: Data, options: DecodeOptions = .default) throws {
        handle = try AVIFDecoderHandle(data, limits: options.limits)
        output = FrameOutput(stored: handle.canvasSize, orientation: handle.orientation, options: options)
        hdr = HDRToSDR.transform(for: handle.colorProfile, options: options, bits: 16)
    }

    /// The size of the frames this source returns (as shown, or the thumbnail size).
    public var canvasSize: PixelSize { output.size }
    /// Number of images in the file.
    public var frameCount: Int { handle.frameCount }
    /// 0: an AVIF sequence loops forever (libavif 0.11 reads no repetition count).
    public var loopCount: Int { 0 }

    /// The duration of frame `index` in seconds, with the browsers' short-delay rule.
    public func duration(ofFrame index: Int) -> Double {
        handle.duration(ofFrame: index)
    }

    /// Frame `index`, turned and sized per the options; PQ/HLG frames tone-mapped to SDR.
    /// - Throws: `badImageData` when `index` is out of range or the frame data is corrupt.
    public func frame(at index: Int) throws -> PixelBuffer {
        output.finish(try handle.frame(at: index, hdr: hdr))
    }
}
