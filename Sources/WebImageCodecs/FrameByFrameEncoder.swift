import Foundation
import WebImageCore

/// The codec-specific half of a built-in frame-by-frame encoder: what to do with a still image,
/// and with the frames of an animation as they come.
protocol AnimationFrameWriter: AnyObject {
    /// Encodes the only frame as a still image.
    func encodeStill(_ pixels: PixelBuffer) throws -> Data
    /// Adds a frame of an animation (every frame, the first included, when there are two or
    /// more).
    func addAnimationFrame(_ pixels: PixelBuffer, duration: Double) throws
    /// Ends the animation and returns the file.
    func finishAnimation() throws -> Data
}

/// The ``/WebImageCore/AnimatedImageEncoder`` of the built-in coders (GIF, WebP, APNG, AVIF).
///
/// Fits each frame within ``/WebImageCore/EncodeOptions/maxPixelSize``, keeps only the first
/// frame unless ``/WebImageCore/EncodeOptions/keepAnimation``, and holds the first frame back
/// until a second arrives, so that a one-frame image is written as a still image exactly as
/// before (no animation chunk, no loop extension). At most that one frame is held: everything
/// else is handed to the ``AnimationFrameWriter`` at once.
final class FrameByFrameEncoder: AnimatedImageEncoder {
    private let writer: any AnimationFrameWriter
    private let frameSize: PixelSize
    private let outputSize: PixelSize
    private let keepsAnimation: Bool
    /// Whether 16-bit frames reach the writer as they are (else converted to RGBA8 first).
    private let keepsHighBitDepth: Bool
    private var pending: (pixels: PixelBuffer, duration: Double)?
    private var count = 0
    private var finished = false

    /// - Parameters:
    ///   - frameSize: the size of the frames ``add(_:duration:)`` accepts.
    ///   - outputSize: the size the writer was made for (frames are fitted to it).
    ///   - keepsHighBitDepth: hand 16-bit frames to the writer as they are (writers that write
    ///     them); by default they are converted to RGBA8 (nearest value).
    init(
        writer: any AnimationFrameWriter, frameSize: PixelSize, outputSize: PixelSize, keepsAnimation: Bool,
        keepsHighBitDepth: Bool = false
    ) {
        self.keepsHighBitDepth = keepsHighBitDepth
        self.writer = writer
        self.frameSize = frameSize
        self.outputSize = outputSize
        self.keepsAnimation = keepsAnimation
    }

    /// The size frames of `frameSize` are written at under `options` (``/WebImageCore/EncodeOptions/maxPixelSize``).
    static func outputSize(for frameSize: PixelSize, options: EncodeOptions) -> PixelSize {
        guard let box = options.maxPixelSize else { return frameSize }
        return ThumbnailSizing.fit(frameSize, within: box, preserveAspectRatio: true)
    }

    func add(_ pixels: PixelBuffer, duration: Double) throws {
        guard !finished else { throw WebImageError.encodingFailed(reason: "a frame was added after the image was finished") }
        guard pixels.width == frameSize.width, pixels.height == frameSize.height else {
            throw WebImageError.encodingFailed(
                reason: "frame \(count + 1) is \(pixels.width)x\(pixels.height); the animation's frames are \(frameSize)")
        }
        if count >= 1 && !keepsAnimation { return }
        let pixels = keepsHighBitDepth ? pixels : pixels.convertedToRGBA8()
        let fitted = outputSize == frameSize ? pixels : pixels.downscaled(to: outputSize)
        count += 1
        if count == 1 {
            pending = (fitted, duration)
            return
        }
        if let first = pending {
            pending = nil
            try writer.addAnimationFrame(first.pixels, duration: first.duration)
        }
        try writer.addAnimationFrame(fitted, duration: duration)
    }

    func finish() throws -> Data {
        guard !finished else { throw WebImageError.encodingFailed(reason: "the image was already finished") }
        finished = true
        if let only = pending {
            pending = nil
            return try writer.encodeStill(only.pixels)
        }
        guard count > 0 else { throw WebImageError.encodingFailed(reason: "no frames to encode") }
        return try writer.finishAnimation()
    }

    /// Encodes every frame of `image` (already prepared: upright, sized, frames chosen) with
    /// `writer`: the whole-image encode, through the same path as frame-by-frame encoding.
    static func encode(_ image: Image, with writer: any AnimationFrameWriter, keepingHighBitDepth: Bool = false) throws -> Data {
        let encoder = FrameByFrameEncoder(
            writer: writer, frameSize: image.pixelSize, outputSize: image.pixelSize, keepsAnimation: true,
            keepsHighBitDepth: keepingHighBitDepth)
        for frame in image.frames { try encoder.add(frame.pixels, duration: frame.duration) }
        return try encoder.finish()
    }
}
