/// A rectangle in whole pixels, origin at the top-left.
public struct PixelRect: Sendable, Hashable, CustomStringConvertible {
    /// Left edge in pixels.
    public var x: Int
    /// Top edge in pixels.
    public var y: Int
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int

    /// Creates a rectangle (any values; see ``clipped(to:)``).
    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// The part of this rectangle inside `0..<size.width × 0..<size.height`, or `nil` when
    /// nothing is left. Overflow-safe for any values.
    public func clipped(to size: PixelSize) -> PixelRect? {
        let x0 = max(0, min(x, size.width))
        let y0 = max(0, min(y, size.height))
        let (right, o1) = x.addingReportingOverflow(max(0, width))
        let (bottom, o2) = y.addingReportingOverflow(max(0, height))
        let x1 = min(o1 ? Int.max : right, size.width)
        let y1 = min(o2 ? Int.max : bottom, size.height)
        guard x1 > x0, y1 > y0 else { return nil }
        return PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    public var description: String { "(\(x),\(y),\(width),\(height))" }
}

/// Cuts a rectangle out of every frame (SPEC T-2). The rectangle is clipped to the image;
/// the transform returns `nil` when nothing of it lies inside. Cropping the full image returns
/// the same pixels.
///
/// Key: `CropTransformer(rect=(x,y,w,h))`.
public struct CropTransformer: ImageTransformer {
    /// The rectangle to keep, in pixels.
    public let rect: PixelRect

    /// Creates a crop to `rect`.
    public init(rect: PixelRect) {
        self.rect = rect
    }

    public var transformerKey: String { "CropTransformer(rect=\(rect))" }

    public func transform(_ image: Image, key: String) -> Image? {
        guard let r = rect.clipped(to: image.pixelSize) else { return nil }
        return image.mappingFrames { $0.cropped(to: r) }?.carryingGainMap(from: image) { $0.cropped(base: image.pixelSize, to: r) }
    }
}

extension PixelBuffer {
    /// The pixels inside `rect`, which must lie within the buffer (use ``PixelRect/clipped(to:)``).
    /// Returns `self` for the full rectangle.
    public func cropped(to rect: PixelRect) -> PixelBuffer? {
        guard let r = rect.clipped(to: PixelSize(width: width, height: height)), r == rect else { return nil }
        if r.x == 0 && r.y == 0 && r.width == width && r.height == height { return self }
        let bpp = format.bytesPerPixel
        return bytes.withUnsafeBufferPointer { src in
            PixelBuffer.make(width: r.width, height: r.height, format: format) { out in
                guard let s = src.baseAddress, let o = out.baseAddress else { return }
                let rowBytes = r.width * bpp
                for row in 0..<r.height {
                    (o + row * rowBytes).update(from: s + ((r.y + row) * width + r.x) * bpp, count: rowBytes)
                }
            }
        }
    }
}
