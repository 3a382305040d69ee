import Foundation
import WebImage

extension FrameStep {
    /// `gradient`: the colour composited over the image with an opacity rising from 0 at
    /// `start` to the option's at `stop`, positions measured along the direction (0° = top to
    /// bottom, 90° = right to left, clockwise) as fractions of the image's extent along it.
    static let gradient = FrameStep(name: "gradient") { pixels, _, context in
        guard let gradient = context.options.colorFilters.gradient else { return pixels }
        let radians = gradient.angle * .pi / 180
        // The direction in which the opacity rises, in image coordinates (y down).
        let dx = -sin(radians), dy = cos(radians)
        let extent = abs(dx) + abs(dy)
        let width = Double(pixels.width), height = Double(pixels.height)
        let color = gradient.color.vector(), opacity = gradient.opacity
        return pixels.mappingColors { value, x, y in
            let u = (Double(x) + 0.5) / width - 0.5, v = (Double(y) + 0.5) / height - 0.5
            let position = (u * dx + v * dy) / extent + 0.5
            let t: Double
            if gradient.stop > gradient.start {
                t = min(1, max(0, (position - gradient.start) / (gradient.stop - gradient.start)))
            } else {
                t = position >= gradient.stop ? 1 : 0
            }
            guard t > 0 else { return }
            value = PixelBuffer.overlay(color, opacity: Float(opacity * t), on: value, keepAlpha: false)
        }
    }
}
