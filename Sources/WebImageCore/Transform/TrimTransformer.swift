extension PixelBuffer {
    /// The smallest box holding every pixel that differs from the background colour by more than
    /// `threshold` in any channel, alpha included (imgproxy's `trim`); `nil` when every pixel is
    /// background.
    /// - Parameters:
    ///   - threshold: the channel distance (0…255) still counted as background.
    ///   - background: the background colour; `nil` takes the top-left pixel's.
    ///   - equalHorizontal: cut the same amount from the left and the right (the smaller cut).
    ///   - equalVertical: cut the same amount from the top and the bottom.
    public func trimBox(threshold: Double, background: RGBA? = nil, equalHorizontal: Bool = false, equalVertical: Bool = false) -> PixelRect? {
        let color = background ?? pixel(x: 0, y: 0)
        let reference = [Int(color.r), Int(color.g), Int(color.b), Int(color.a)]
        let limit = Int(threshold)
        var minX = width, minY = height, maxX = -1, maxY = -1
        bytes.withUnsafeBufferPointer { bytes in
            for y in 0..<height {
                for x in 0..<width {
                    let index = (y * width + x) * 4
                    var differs = false
                    for channel in 0..<4 where abs(Int(bytes[index + channel]) - reference[channel]) > limit {
                        differs = true
                    }
                    if differs {
                        minX = min(minX, x); maxX = max(maxX, x); minY = min(minY, y); maxY = max(maxY, y)
                    }
                }
            }
        }
        guard maxX >= 0 else { return nil }
        if equalHorizontal {
            let cut = min(minX, width - 1 - maxX)
            (minX, maxX) = (cut, width - 1 - cut)
        }
        if equalVertical {
            let cut = min(minY, height - 1 - maxY)
            (minY, maxY) = (cut, height - 1 - cut)
        }
        return PixelRect(x: minX, y: minY, width: maxX - minX + 1, height: maxY - minY + 1)
    }
}

/// Removes a uniform border (imgproxy's `trim`): the box is found on the first frame
/// (``PixelBuffer/trimBox(threshold:background:equalHorizontal:equalVertical:)``) and every
/// frame is cropped to it. An image that is all background is returned as it is.
///
/// Key: `TrimTransformer(threshold=t,color=#rrggbbaa|corner,equal=hv)`.
public struct TrimTransformer: ImageTransformer {
    /// The channel distance (0…255) still counted as background.
    public let threshold: Double
    /// The background colour; `nil` takes the top-left pixel's.
    public let background: RGBA?
    /// Whether the left and right (top and bottom) cuts are made equal.
    public let equalHorizontal, equalVertical: Bool

    /// Trims the border within `threshold` of `background` (the top-left pixel's colour if `nil`).
    public init(threshold: Double, background: RGBA? = nil, equalHorizontal: Bool = false, equalVertical: Bool = false) {
        self.threshold = threshold
        self.background = background
        self.equalHorizontal = equalHorizontal
        self.equalVertical = equalVertical
    }

    public var transformerKey: String {
        let color = background.map(keyColor) ?? "corner"
        let equal = (equalHorizontal ? "h" : "") + (equalVertical ? "v" : "")
        return "TrimTransformer(threshold=\(threshold),color=\(color),equal=\(equal))"
    }

    public func transform(_ image: Image, key: String) -> Image? {
        // 8-bit only: a 16-bit image is converted first (SPEC H-1).
        let image = image.convertedToRGBA8()
        guard let first = image.frames.first?.pixels,
              let box = first.trimBox(threshold: threshold, background: background, equalHorizontal: equalHorizontal, equalVertical: equalVertical)
        else { return image }
        return image.mappingFrames { $0.cropped(to: box) }?.carryingGainMap(from: image) { $0.cropped(base: image.pixelSize, to: box) }
    }
}
