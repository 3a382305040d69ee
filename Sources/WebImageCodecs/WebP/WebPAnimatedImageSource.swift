import CWebP
import Foundation
import WebImageCore

/// Lazy, sequential access to the composited frames of an animated WebP (SPEC A-1).
///
/// Frames are decoded on demand by libwebp's animation decoder. Reading frames in order is
/// cheapest; asking for an earlier frame rewinds the decoder and decodes from the first frame
/// again (WebP frames depend on the ones before them). Memory held: the compressed file and
/// libwebp's two canvases, independent of the frame count.
///
/// Single owner, not thread-safe (see ``/WebImageCore/AnimatedImageSource``).
public final class WebPAnimatedImageSource: AnimatedImageSource {
    private let animation: WebPAnimation
    private let outputSize: PixelSize
    /// The profile frames are converted from (G-2), `nil` unless the options convert to sRGB.
    private let colorProfile: ColorProfile?

    /// Opens `data`. The canvas and frame-count limits of `options` are checked from the header
    /// (per canvas: the decoded-bytes budget is not charged for every frame, SPEC R-3);
    /// with a ``/WebImageCore/DecodeOptions/thumbnailPixelSize`` the frames are resampled to the target size.
    /// - Throws: ``/WebImageCore/WebImageError`` — `badImageData` or `imageTooLarge`.
    public init(_ data: Data, options: DecodeOptions = .default) throws {
        animation = try WebPAnimation(data, limits: options.limits, oneFrameAtATime: true)
        outputSize = options.targetSize(for: animation.canvasSize)
        colorProfile = options.colorManagement == .convertToSRGB ? WebPICCProfile.read(data) : nil
    }

    /// The size of the frames this source returns (the canvas, or the thumbnail size).
    public var canvasSize: PixelSize { outputSize }

    /// Number of frames in the file.
    public var frameCount: Int { animation.frameCount }

    /// Loop count; 0 = forever.
    public var loopCount: Int { animation.loopCount }

    /// Display duration of frame `index` in seconds (clamped per ``/WebImageCore/FrameDelay``).
    public func duration(ofFrame index: Int) -> Double {
        animation.duration(ofFrame: index)
    }

    /// The composited canvas of frame `index`, converted to sRGB when the file has a profile
    /// and the options convert (the default).
    /// - Throws: `badImageData` when `index` is out of range or the frame data is corrupt.
    public func frame(at index: Int) throws -> PixelBuffer {
        guard index >= 0, index < frameCount else {
            throw WebImageError.badImageData(reason: "frame \(index) out of range 0..<\(frameCount)")
        }
        if index < animation.nextIndex { animation.rewind() }
        // Skip the frames in between (each is still decoded: later frames build on them).
        while animation.nextIndex < index {
            try animation.skip()
        }
        let pixels = try animation.next(outputSize: outputSize).pixels
        guard let colorProfile else { return pixels }
        return ColorConversion.toSRGB(pixels, from: colorProfile)
    }
}
