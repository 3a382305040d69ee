extension PixelBuffer {
    /// These pixels composited over the opaque colour `background` (its alpha is ignored): every
    /// pixel's alpha becomes 255, `c = (c·a + background·(255 − a) + 127) / 255` per channel.
    public func flattened(on background: RGBA) -> PixelBuffer {
        let fill = [Int(background.r), Int(background.g), Int(background.b)]
        return PixelBuffer.make(width: width, height: height) { out in
            bytes.withUnsafeBufferPointer { source in
                for index in stride(from: 0, to: source.count, by: 4) {
                    let alpha = Int(source[index + 3])
                    for channel in 0..<3 {
                        out[index + channel] = UInt8((Int(source[index + channel]) * alpha + fill[channel] * (255 - alpha) + 127) / 255)
                    }
                    out[index + 3] = 255
                }
            }
        }
    }
}

/// Composites every frame over an opaque background colour (imgproxy's `background`): the
/// result has no alpha.
///
/// Key: `FlattenTransformer(background=#rrggbbaa)`.
public struct FlattenTransformer: ImageTransformer {
    /// The background colour; its alpha is ignored.
    public let background: RGBA

    /// Flattens frames onto `background`.
    public init(background: RGBA) {
        self.background = background
    }

    public var transformerKey: String { "FlattenTransformer(background=\(keyColor(background)))" }

    public func transform(_ image: Image, key: String) -> Image? {
        // 8-bit only: a 16-bit image is converted first (SPEC H-1).
        let image = image.convertedToRGBA8()
        return image.mappingFrames(hasAlpha: false) { $0.flattened(on: background) }
    }
}
