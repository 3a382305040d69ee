import CAVIF
import Foundation
import WebImageCore

/// The AVIF decoder over libavif (SPEC C-3's later step): still images and image sequences
/// (animated AVIF), 8-, 10- and 12-bit sources, alpha.
///
/// - Pixels come out as 8-bit RGBA with straight alpha; higher bit depths are scaled down by
///   libavif's YUV→RGB conversion.
/// - Limits are checked from the container before pixel memory is allocated, and the AV1
///   decoder is given the pixel limit too (SPEC C-6).
/// - Thumbnails decode at full size and are then resampled (AV1 has no scaled decode).
/// - An image sequence decodes to one frame per image with its duration (browsers' short-delay
///   rule applied); it loops forever (libavif 0.11 does not read a repetition count).
/// - The `irot`/`imir` transform properties are not applied (libavif leaves them to the
///   caller, and no file in the test corpus carries them); the image is as coded.
/// - AVIF is not encoded.
///
/// The coder holds no state; every call creates its own libavif decoder.
public struct AVIFCoder: AnimatedImageDecoding {
    public init() {}

    /// Whether `data` starts with an AVIF `ftyp` box.
    public func canDecode(_ data: Data) -> Bool {
        ImageFormat.detect(data) == .avif
    }

    /// Decodes every image of the file (only the first with `firstFrameOnly`).
    /// - Throws: ``/WebImageCore/WebImageError`` — `badImageData` or `imageTooLarge`.
    public func decode(_ data: Data, options: DecodeOptions) throws -> Image {
        let handle = try AVIFDecoderHandle(data, limits: options.limits)
        let target = options.targetSize(for: handle.canvasSize)
        let count = options.firstFrameOnly ? 1 : handle.frameCount
        var frames: [ImageFrame] = []
        frames.reserveCapacity(count)
        for index in 0..<count {
            var pixels = try handle.frame(at: index)
            if target != handle.canvasSize { pixels = pixels.thumbnail(to: target) }
            frames.append(ImageFrame(pixels: pixels, duration: count > 1 ? handle.duration(ofFrame: index) : 0))
        }
        return Image(frames: frames, scale: Self.scale(options), format: .avif, loopCount: 0, hasAlpha: handle.hasAlpha)
    }

    /// Reads size, alpha and frame count from the container, without decoding pixels.
    /// - Throws: `badImageData` when libavif cannot parse the container, `imageTooLarge` over a limit.
    public func readMetadata(_ data: Data) throws -> ImageMetadata {
        let handle = try AVIFDecoderHandle(data, limits: .default)
        var metadata = ImageMetadata(format: .avif, pixelSize: handle.canvasSize, hasAlpha: handle.hasAlpha)
        metadata.frameCount = handle.frameCount
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

    static func scale(_ options: DecodeOptions) -> Double {
        guard let factor = options.scaleFactor, factor.isFinite, factor > 0 else { return 1 }
        return factor
    }
}

/// The frames of an AVIF image sequence, decoded one at a time on request.
public final class AVIFAnimatedImageSource: AnimatedImageSource {
    private let handle: AVIFDecoderHandle
    private let outputSize: PixelSize

    /// Parses `data`; frames are decoded by ``frame(at:)``.
    /// - Throws: `badImageData` or `imageTooLarge`.
    public init(_ data: Data, options: DecodeOptions = .default) throws {
        handle = try AVIFDecoderHandle(data, limits: options.limits)
        outputSize = options.targetSize(for: handle.canvasSize)
    }

    public var canvasSize: PixelSize { outputSize }
    public var frameCount: Int { handle.frameCount }
    public var loopCount: Int { 0 }

    public func duration(ofFrame index: Int) -> Double {
        handle.duration(ofFrame: index)
    }

    public func frame(at index: Int) throws -> PixelBuffer {
        let pixels = try handle.frame(at: index)
        return outputSize == handle.canvasSize ? pixels : pixels.thumbnail(to: outputSize)
    }
}
