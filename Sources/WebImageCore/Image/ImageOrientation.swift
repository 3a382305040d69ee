/// EXIF/TIFF orientation (tag 0x0112): how stored pixels must be turned to show upright.
public enum ImageOrientation: Int, Sendable, Hashable, CaseIterable {
    /// 1: as stored.
    case up = 1
    /// 2: mirrored left–right.
    case upMirrored = 2
    /// 3: rotated 180°.
    case down = 3
    /// 4: mirrored top–bottom.
    case downMirrored = 4
    /// 5: transposed (mirrored along the top-left/bottom-right diagonal).
    case leftMirrored = 5
    /// 6: stored rotated; turn 90° clockwise to show.
    case right = 6
    /// 7: transversed (mirrored along the other diagonal).
    case rightMirrored = 7
    /// 8: stored rotated; turn 90° counter-clockwise to show.
    case left = 8

    /// Whether showing the image swaps its width and height.
    public var swapsDimensions: Bool { rawValue >= 5 }

    /// The orientation for an EXIF value, `.up` for anything outside 1…8.
    public init(exifValue: Int) {
        self = ImageOrientation(rawValue: exifValue) ?? .up
    }
}

extension PixelBuffer {
    /// Returns the pixels turned upright for `orientation` (self when `.up`).
    public func applying(_ orientation: ImageOrientation) -> PixelBuffer {
        if orientation == .up { return self }
        if format == .rgba16 { return applying16(orientation) }
        let w = width
        let h = height
        let outW = orientation.swapsDimensions ? h : w
        let outH = orientation.swapsDimensions ? w : h
        return bytes.withUnsafeBytes { raw in
            let src = raw.bindMemory(to: UInt32.self)
            return PixelBuffer.make(width: outW, height: outH) { out in
                out.withMemoryRebound(to: UInt32.self) { dst in
                    for y in 0..<h {
                        let row = y * w
                        for x in 0..<w {
                            let dx: Int
                            let dy: Int
                            switch orientation {
                            case .up: dx = x; dy = y
                            case .upMirrored: dx = w - 1 - x; dy = y
                            case .down: dx = w - 1 - x; dy = h - 1 - y
                            case .downMirrored: dx = x; dy = h - 1 - y
                            case .leftMirrored: dx = y; dy = x
                            case .right: dx = h - 1 - y; dy = x
                            case .rightMirrored: dx = h - 1 - y; dy = w - 1 - x
                            case .left: dx = y; dy = w - 1 - x
                            }
                            dst[dy * outW + dx] = src[row + x]
                        }
                    }
                }
            }
        }
    }
}
