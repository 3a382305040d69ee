import Foundation
import WebImageCore

/// Lazy, frame-by-frame access to an APNG (SPEC A-1). Frames are decoded and composited on
/// demand: stepping forward decodes one frame; asking for an earlier frame restarts from the
/// first. Orientation and the thumbnail size of the options are applied to every frame.
///
/// Single owner, not thread-safe (as ``/WebImageCore/AnimatedImageSource`` requires).
final class PNGAnimatedSource: AnimatedImageSource {
    private let data: Data
    private let output: PNGOutput
    private var renderer: APNGRenderer
    private var current: (index: Int, pixels: PixelBuffer)?
    /// The profile frames are converted from (G-2), `nil` unless the options convert to sRGB.
    private let colorProfile: ColorProfile?

    init(data: Data, layout: PNGLayout, animation: APNGAnimation, options: DecodeOptions) {
        self.data = data
        self.colorProfile = options.colorManagement == .convertToSRGB
            ? data.withUnsafeBytes { PNGColorChunks.read($0, limits: options.limits) } : nil
        self.output = PNGOutput(layout: layout, options: options)
        self.renderer = APNGRenderer(animation: animation, header: layout.header, limits: options.limits)
    }

    var canvasSize: PixelSize { output.size }

    var frameCount: Int { renderer.animation.frames.count }

    var loopCount: Int { renderer.animation.loopCount }

    func duration(ofFrame index: Int) -> Double {
        let frames = renderer.animation.frames
        return frames.indices.contains(index) ? frames[index].control.duration : 0
    }

    func frame(at index: Int) throws -> PixelBuffer {
        guard (0..<frameCount).contains(index) else {
            throw WebImageError.badImageData(reason: "APNG: frame \(index) of \(frameCount) requested")
        }
        if let current, current.index == index { return current.pixels }
        if renderer.nextIndex > index {
            renderer.restart()
            self.current = nil
        }
        var canvas: PixelBuffer?
        try data.withUnsafeBytes { bytes in
            while renderer.nextIndex <= index {
                canvas = try renderer.next(in: bytes)
            }
        }
        guard let canvas else {
            throw WebImageError.badImageData(reason: "APNG: frame \(index) could not be rendered")
        }
        var pixels = output.finish(canvas)
        if let colorProfile { pixels = ColorConversion.toSRGB(pixels, from: colorProfile) }
        current = (index, pixels)
        return pixels
    }
}
