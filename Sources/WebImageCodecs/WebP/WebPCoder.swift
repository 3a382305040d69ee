import CWebP
import Foundation
import WebImageCore

/// The WebP coder over libwebp (SPEC C-3): lossy, lossless and alpha still images, animations
/// through libwebp's demux/animation API, progressive loading and encoding.
///
/// - Decoding writes RGBA (straight alpha) straight into the final ``/WebImageCore/PixelBuffer``. Limits are
///   checked from the header before pixel memory is allocated (SPEC C-6).
/// - Thumbnails (``/WebImageCore/DecodeOptions/thumbnailPixelSize``, ``/WebImageCore/DecodeOptions/scaleDownLargeImages``)
///   of still images are scaled by libwebp while decoding; animation frames are composited at
///   canvas size and then resampled.
/// - The EXIF orientation of a still extended (`VP8X`) file is applied by default (the result's
///   orientation is `.up`); with ``/WebImageCore/DecodeOptions/applyOrientation`` off, pixels are
///   as stored and the tag is reported. Its progressive decode waits for the whole file, since the
///   `EXIF` chunk follows the image data. Animations ignore EXIF orientation.
/// - Animated files decode to one composited frame per animation frame, with durations clamped
///   per ``/WebImageCore/FrameDelay`` and the file's loop count (0 = forever).
/// - Encoding honours ``/WebImageCore/EncodeOptions/quality`` (lossy; lossless uses libwebp's default
///   effort), ``/WebImageCore/EncodeOptions/lossless`` (exact RGBA, including the colour of transparent
///   pixels), ``/WebImageCore/EncodeOptions/maxPixelSize``, ``/WebImageCore/EncodeOptions/maxFileSize`` (lossy only: lossless
///   output has no quality to trade) and ``/WebImageCore/EncodeOptions/keepAnimation``. Images with an
///   orientation other than `.up` are written upright (no EXIF is written).
///
/// The coder holds no state: every call creates and frees its own libwebp objects, so one
/// instance can be used from any number of threads.
public struct WebPCoder: ProgressiveImageDecoding, AnimatedImageDecoding {
    /// The WebP coder (it holds no state).
    public init() {}

    // MARK: Decoding

    /// Whether `data` starts with a RIFF/WEBP header.
    public func canDecode(_ data: Data) -> Bool {
        ImageFormat.detect(data) == .webp
    }

    /// Decodes a still or animated WebP.
    /// - Throws: ``/WebImageCore/WebImageError`` — `badImageData`, `imageTooLarge` or `unsupportedFormat`.
    public func decode(_ data: Data, options: DecodeOptions) throws -> Image {
        let features = try WebPSupport.features(of: data)
        if features.has_animation != 0 {
            return try WebPAnimatedDecoding.decode(data, features: features, options: options)
        }
        return try WebPStillDecoding.decode(data, features: features, options: options)
    }

    /// Reads size, alpha, animation, frame count and loop count from the header and the frame
    /// table, without decoding pixels.
    /// - Throws: `badImageData` when the header is not readable.
    public func readMetadata(_ data: Data) throws -> ImageMetadata {
        let features = try WebPSupport.features(of: data)
        let size = PixelSize(width: Int(features.width), height: Int(features.height))
        var metadata = ImageMetadata(
            format: .webp, pixelSize: size, hasAlpha: features.has_alpha != 0, colorProfile: WebPICCProfile.read(data))
        guard features.has_animation != 0 else {
            metadata.orientation = WebPEXIF.orientation(of: data)
            return metadata
        }
        let table = WebPSupport.frameTable(of: data)
        metadata.frameCount = table.frameCount
        metadata.isAnimated = table.frameCount.map { $0 > 1 } ?? true
        metadata.loopCount = table.loopCount
        return metadata
    }

    // MARK: Animation

    /// Whether the file's extended header (VP8X) has the animation flag and its frame table
    /// holds more than one frame (or cannot be read to the end yet).
    public func isAnimated(_ data: Data) -> Bool {
        guard let features = try? WebPSupport.features(of: data), features.has_animation != 0 else { return false }
        return WebPSupport.frameTable(of: data).frameCount.map { $0 > 1 } ?? true
    }

    /// Opens an animated WebP for lazy, sequential frame access (a still WebP opens as a
    /// one-frame source).
    /// - Throws: `badImageData` or `imageTooLarge`.
    public func makeAnimatedSource(_ data: Data, options: DecodeOptions) throws -> any AnimatedImageSource {
        try WebPAnimatedImageSource(data, options: options)
    }

    // MARK: Progressive loading

    /// Whether `header` looks like WebP (still images decode row by row; animations wait for
    /// the whole file).
    public func canDecodeIncrementally(_ header: Data) -> Bool {
        canDecode(header)
    }

    /// A fresh ``WebPIncrementalDecoder`` for one download.
    public func makeIncrementalDecoder(options: DecodeOptions) -> any IncrementalImageDecoder {
        WebPIncrementalDecoder(options: options)
    }

    // MARK: Encoding

    /// `true` for ``/WebImageCore/ImageFormat/webp``.
    public func canEncode(_ format: ImageFormat) -> Bool {
        format == .webp
    }

    /// Encodes `image` as WebP (animated when it has several frames and
    /// ``/WebImageCore/EncodeOptions/keepAnimation`` is set).
    /// - Throws: `unsupportedFormat` for other formats, `encodingFailed` when libwebp fails.
    public func encode(_ image: Image, format: ImageFormat, options: EncodeOptions) throws -> Data {
        let image = EightBitOutput.prepare(image)
        guard format == .webp else {
            throw WebImageError.unsupportedFormat(format, reason: "WebPCoder encodes WebP only")
        }
        let data = try WebPEncoding.encode(image, options: options)
        guard let profile = EmbeddedProfile.iccData(for: image) else { return data }
        return try WebPICCProfile.embed(profile, in: data)
    }
}
