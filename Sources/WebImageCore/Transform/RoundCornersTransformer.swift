/// Which corners ``RoundCornersTransformer`` rounds.
public struct RectCorners: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// The top-left corner.
    public static let topLeft = RectCorners(rawValue: 1)
    /// The top-right corner.
    public static let topRight = RectCorners(rawValue: 2)
    /// The bottom-left corner.
    public static let bottomLeft = RectCorners(rawValue: 4)
    /// The bottom-right corner.
    public static let bottomRight = RectCorners(rawValue: 8)
    /// All four corners.
    public static let all: RectCorners = [.topLeft, .topRight, .bottomLeft, .bottomRight]
}

/// Rounds the corners of every frame and optionally draws a border along the rounded outline
/// (SPEC T-2).
///
/// The outline is the image rectangle with quarter circles of ``radius`` pixels (capped at half
/// the shorter side) at the chosen corners. Each pixel's coverage is estimated from its
/// centre's signed distance to the outline (a one-pixel ramp), so curved edges are
/// anti-aliased. Outside the outline becomes transparent; a border of ``borderWidth`` pixels
/// inside the outline is composited over the image (source-over, premultiplied).
///
/// Key: `RoundCornersTransformer(radius=16,corners=15,border=2,borderColor=#000000ff)`.
public struct RoundCornersTransformer: ImageTransformer {
    /// Corner radius in pixels.
    public let radius: Double
    /// The corners to round.
    public let corners: RectCorners
    /// Border width in pixels (0 for none).
    public let borderWidth: Double
    /// Border colour (straight alpha).
    public let borderColor: RGBA

    /// Creates the transformer. Negative values count as 0.
    public init(
        radius: Double, corners: RectCorners = .all, borderWidth: Double = 0,
        borderColor: RGBA = RGBA(r: 0, g: 0, b: 0, a: 255)
    ) {
        self.radius = radius
        self.corners = corners
        self.borderWidth = borderWidth
        self.borderColor = borderColor
    }

    public var transformerKey: String {
        "RoundCornersTransformer(radius=\(keyNumber(radius)),corners=\(corners.rawValue),"
            + "border=\(keyNumber(borderWidth)),borderColor=\(keyColor(borderColor)))"
    }

    public func transform(_ image: Image, key: String) -> Image? {
        // 8-bit only: a 16-bit image is converted first (SPEC H-1).
        let image = image.convertedToRGBA8()
        guard radius.isFinite, borderWidth.isFinite else { return nil }
        let r = Float(max(0, min(radius, Double(min(image.width, image.height)) / 2)))
        let bw = Float(max(0, min(borderWidth, Double(max(image.width, image.height)))))
        if r == 0 && bw == 0 { return image }
        let corners = self.corners
        let ba = Float(borderColor.a) / 255
        let border = SIMD4<Float>(
            Float(borderColor.r) * ba, Float(borderColor.g) * ba, Float(borderColor.b) * ba, Float(borderColor.a))
        return image.mappingFrames(hasAlpha: true) { frame in
            let w = frame.width
            let h = frame.height
            let fw = Float(w)
            let fh = Float(h)
            /// Signed distance from (px, py) to the outline; negative inside.
            @inline(__always) func distance(_ px: Float, _ py: Float) -> Float {
                let left = px < r
                let right = px > fw - r
                let top = py < r
                let bottom = py > fh - r
                var cx: Float = -1
                var cy: Float = -1
                if top && left && corners.contains(.topLeft) {
                    cx = r; cy = r
                } else if top && right && corners.contains(.topRight) {
                    cx = fw - r; cy = r
                } else if bottom && left && corners.contains(.bottomLeft) {
                    cx = r; cy = fh - r
                } else if bottom && right && corners.contains(.bottomRight) {
                    cx = fw - r; cy = fh - r
                }
                if cx >= 0 {
                    let dx = px - cx
                    let dy = py - cy
                    return (dx * dx + dy * dy).squareRoot() - r
                }
                return -min(min(px, fw - px), min(py, fh - py))
            }
            @inline(__always) func coverage(_ d: Float) -> Float { min(1, max(0, 0.5 - d)) }
            return frame.bytes.withUnsafeBufferPointer { src in
                PixelBuffer.make(width: w, height: h) { out in
                    guard let s = src.baseAddress, let o = out.baseAddress else { return }
                    for y in 0..<h {
                        for x in 0..<w {
                            let i = y * w + x
                            let d = distance(Float(x) + 0.5, Float(y) + 0.5)
                            let outer = coverage(d)
                            if outer >= 1 && (bw == 0 || d <= -bw - 0.5) {
                                // Fully inside, away from the border: unchanged.
                                for c in 0..<4 { o[i * 4 + c] = s[i * 4 + c] }
                                continue
                            }
                            let p = Premultiplied.load(s, i)
                            var value: SIMD4<Float>
                            if bw > 0 {
                                let inner = min(outer, coverage(d + bw))
                                let bordered = border + p * (1 - ba)
                                value = p * inner + bordered * (outer - inner)
                            } else {
                                value = p * outer
                            }
                            Premultiplied.store(value, o, i)
                        }
                    }
                }
            }
        }
    }
}
