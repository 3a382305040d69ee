/// Adds a margin around every frame (SPEC T-2, imgproxy's `padding`), filled with a colour or
/// left transparent. The image keeps its pixels; the canvas grows by the four sides.
///
/// Key: `PaddingTransformer(top=10,right=20,bottom=10,left=20,color=#ffffffff)`.
/// Returns `nil` when the grown canvas would exceed the default pixel limit.
public struct PaddingTransformer: ImageTransformer {
    /// Rows added above, in pixels.
    public let top: Int
    /// Columns added on the right, in pixels.
    public let right: Int
    /// Rows added below, in pixels.
    public let bottom: Int
    /// Columns added on the left, in pixels.
    public let left: Int
    /// The fill (straight alpha); `nil` leaves the margin transparent.
    public let color: RGBA?

    /// Creates a padding of `top`, `right`, `bottom`, `left` pixels (CSS order; negative values
    /// count as 0) filled with `color`, or transparent when `nil`.
    public init(top: Int, right: Int, bottom: Int, left: Int, color: RGBA? = nil) {
        self.top = max(0, top)
        self.right = max(0, right)
        self.bottom = max(0, bottom)
        self.left = max(0, left)
        self.color = color
    }

    public var transformerKey: String {
        "PaddingTransformer(top=\(top),right=\(right),bottom=\(bottom),left=\(left),color=\(color.map(keyColor) ?? "none"))"
    }

    /// The output size for an input of `size` pixels, or `nil` when it would overflow or exceed
    /// the pixel limit.
    public func outputSize(for size: PixelSize) -> PixelSize? {
        let (w1, o1) = size.width.addingReportingOverflow(left)
        let (w2, o2) = w1.addingReportingOverflow(right)
        let (h1, o3) = size.height.addingReportingOverflow(top)
        let (h2, o4) = h1.addingReportingOverflow(bottom)
        guard !(o1 || o2 || o3 || o4), isAllowedOutput(width: w2, height: h2) else { return nil }
        return PixelSize(width: w2, height: h2)
    }

    public func transform(_ image: Image, key: String) -> Image? {
        // 8-bit only: a 16-bit image is converted first (SPEC H-1).
        let image = image.convertedToRGBA8()
        if top == 0 && right == 0 && bottom == 0 && left == 0 { return image }
        guard let size = outputSize(for: image.pixelSize) else { return nil }
        let fill = color ?? RGBA(r: 0, g: 0, b: 0, a: 0)
        let x0 = left
        let y0 = top
        let transparentFill = fill.a < 255
        return image.mappingFrames(hasAlpha: image.hasAlpha || transparentFill) { frame in
            frame.bytes.withUnsafeBufferPointer { source in
                PixelBuffer.make(width: size.width, height: size.height) { out in
                    guard let src = source.baseAddress, let dst = out.baseAddress else { return }
                    let fillWord = SIMD4<UInt8>(fill.r, fill.g, fill.b, fill.a)
                    let raw = UnsafeMutableRawPointer(dst)
                    for i in 0..<(size.width * size.height) {
                        raw.storeBytes(of: fillWord, toByteOffset: i * 4, as: SIMD4<UInt8>.self)
                    }
                    let rowBytes = frame.width * 4
                    for y in 0..<frame.height {
                        (dst + ((y0 + y) * size.width + x0) * 4).update(from: src + y * rowBytes, count: rowBytes)
                    }
                }
            }
        }?.carryingGainMap(from: image) { $0.extended(base: image.pixelSize, to: size, x: x0, y: y0) }
    }
}
