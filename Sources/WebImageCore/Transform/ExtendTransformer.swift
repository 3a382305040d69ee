extension PixelBuffer {
    /// These pixels placed on a `size` canvas with their top-left corner at (`x`, `y`); the rest
    /// of the canvas is `fill` (straight alpha; widened to `c · 257` on an RGBA16 buffer). The
    /// pixels must fit on the canvas there.
    public func extended(to size: PixelSize, x: Int, y: Int, fill: RGBA) -> PixelBuffer {
        if format == .rgba16 { return extended16(to: size, x: x, y: y, fill: fill) }
        let color = [fill.r, fill.g, fill.b, fill.a]
        return PixelBuffer.make(width: size.width, height: size.height) { out in
            for index in stride(from: 0, to: out.count, by: 4) {
                out[index] = color[0]; out[index + 1] = color[1]; out[index + 2] = color[2]; out[index + 3] = color[3]
            }
            bytes.withUnsafeBufferPointer { source in
                let rowBytes = width * 4
                for row in 0..<height {
                    let target = ((y + row) * size.width + x) * 4
                    for byte in 0..<rowBytes { out[target + byte] = source[row * rowBytes + byte] }
                }
            }
        }
    }
}

/// Places every frame on a larger canvas (imgproxy's `extend`): the frame's top-left corner at
/// (`x`, `y`), the rest of the canvas `fill`. Frames that do not fit on the canvas there
/// make the transform fail (`nil`).
///
/// Key: `ExtendTransformer(size=WxH,at=x,y,fill=#rrggbbaa)`.
public struct ExtendTransformer: ImageTransformer {
    /// The canvas size.
    public let size: PixelSize
    /// Where each frame's top-left corner goes on the canvas.
    public let x, y: Int
    /// The colour of the canvas around the frame (straight alpha; transparent by default).
    public let fill: RGBA

    /// Extends frames onto a `size` canvas at (`x`, `y`), filled with `fill`.
    public init(size: PixelSize, x: Int, y: Int, fill: RGBA = RGBA(r: 0, g: 0, b: 0, a: 0)) {
        self.size = size
        self.x = x
        self.y = y
        self.fill = fill
    }

    public var transformerKey: String {
        "ExtendTransformer(size=\(size.width)x\(size.height),at=\(x),\(y),fill=\(keyColor(fill)))"
    }

    public func transform(_ image: Image, key: String) -> Image? {
        if image.pixelFormat == .rgba16, !isAllowedOutput(width: size.width, height: size.height, format: .rgba16) {
            return nil
        }
        return image.mappingFrames(hasAlpha: image.hasAlpha || fill.a < 255) { frame in
            guard x >= 0, y >= 0, x + frame.width <= size.width, y + frame.height <= size.height else { return nil }
            return frame.extended(to: size, x: x, y: y, fill: fill)
        }?.carryingGainMap(from: image) { $0.extended(base: image.pixelSize, to: size, x: x, y: y) }
    }
}
