import CWebP
import Foundation
import WebImageCore

/// Full decoding of animated WebP files into an ``/WebImageCore/Image`` with every composited frame.
enum WebPAnimatedDecoding {
    /// Decodes all frames (or the first one with ``/WebImageCore/DecodeOptions/firstFrameOnly``).
    ///
    /// The canvas and frame limits are checked from the container before any canvas is
    /// allocated. Thumbnails resample each composited frame with ``/WebImageCore/PixelBuffer/thumbnail(to:)``.
    static func decode(_ data: Data, features: WebPBitstreamFeatures, options: DecodeOptions) throws -> Image {
        let firstOnly = options.firstFrameOnly
        let animation = try WebPAnimation(data, limits: options.limits, framesToCheck: { firstOnly ? 1 : $0 })
        let target = options.targetSize(for: animation.canvasSize)
        let count = firstOnly ? 1 : animation.frameCount
        var frames: [ImageFrame] = []
        frames.reserveCapacity(count)
        var previousTimestamp = 0
        for _ in 0..<count {
            let (pixels, timestamp) = try animation.next(outputSize: target)
            let duration = firstOnly ? 0 : WebPSupport.duration(milliseconds: timestamp - previousTimestamp)
            previousTimestamp = timestamp
            frames.append(ImageFrame(pixels: pixels, duration: duration))
        }
        let image = Image(
            frames: frames, scale: options.imageScale, format: .webp,
            loopCount: animation.loopCount, hasAlpha: features.has_alpha != 0)
        let profile = options.colorManagement == .ignore ? nil : WebPICCProfile.read(data)
        return ColorConversion.finish(image, profile: profile, options: options)
    }
}
