import Foundation

/// Rotates every frame by any angle (SPEC T-2). Positive angles turn **clockwise** as seen on
/// screen; degrees.
///
/// - `fitSize: true` grows the canvas to hold the whole rotated image
///   (`⌈w·|cos θ| + h·|sin θ|⌉ × ⌈w·|sin θ| + h·|cos θ|⌉`); `false` keeps the original size and
///   crops what turns outside it.
/// - Multiples of 90° (when the canvas fits exactly) move pixels without resampling, so
///   0° returns the same pixels and four quarter turns give the original.
/// - Other angles sample bilinearly from premultiplied pixels around each output pixel's
///   centre; uncovered areas are transparent and the image edge is anti-aliased.
///
/// Key: `RotateTransformer(angle=30,fitSize=true)`.
public struct RotateTransformer: ImageTransformer {
    /// The angle in degrees, clockwise.
    public let angle: Double
    /// Whether the canvas grows to hold the rotated image.
    public let fitSize: Bool

    /// Creates a rotation by `angle` degrees clockwise.
    public init(angle: Double, fitSize: Bool = true) {
        self.angle = angle
        self.fitSize = fitSize
    }

    public var transformerKey: String { "RotateTransformer(angle=\(keyNumber(angle)),fitSize=\(fitSize))" }

    public func transform(_ image: Image, key: String) -> Image? {
        guard angle.isFinite else { return nil }
        var degrees = angle.truncatingRemainder(dividingBy: 360)
        if degrees < 0 { degrees += 360 }
        let square = image.width == image.height
        if degrees == 0 { return image }
        for (quarter, orientation) in [(180.0, ImageOrientation.down), (90, .right), (270, .left)]
        where degrees == quarter && (quarter == 180 || fitSize || square) {
            return image.mappingFrames { $0.applying(orientation) }?.carryingGainMap(from: image) { $0.applying(orientation) }
        }
        // Other angles sample in 8 bits: a 16-bit image is converted first (SPEC H-1).
        let image = image.convertedToRGBA8()
        let radians = degrees * Double.pi / 180
        let w = Double(image.width)
        let h = Double(image.height)
        var outW = image.width
        var outH = image.height
        if fitSize {
            let c = abs(cos(radians))
            let s = abs(sin(radians))
            outW = max(1, Int((w * c + h * s - 1e-6).rounded(.up)))
            outH = max(1, Int((w * s + h * c - 1e-6).rounded(.up)))
        }
        guard isAllowedOutput(width: outW, height: outH) else { return nil }
        let size = PixelSize(width: outW, height: outH)
        // A gain map is not turned by other angles: the result has none (and says why).
        return image.mappingFrames(hasAlpha: true) { $0.rotated(radians: radians, into: size) }?.carryingGainMap(from: image) { _ in nil }
    }
}

extension PixelBuffer {
    /// Rotates clockwise by `radians` about the centre onto a canvas of `size` (centred),
    /// with bilinear sampling of premultiplied pixels and a transparent background.
    func rotated(radians: Double, into size: PixelSize) -> PixelBuffer {
        let w = width
        let h = height
        let cosA = Float(cos(radians))
        let sinA = Float(sin(radians))
        let halfOutW = Float(size.width) / 2
        let halfOutH = Float(size.height) / 2
        let halfW = Float(w) / 2
        let halfH = Float(h) / 2
        return bytes.withUnsafeBufferPointer { src in
            PixelBuffer.make(width: size.width, height: size.height) { out in
                guard let s = src.baseAddress, let o = out.baseAddress else { return }
                @inline(__always) func sample(_ x: Int, _ y: Int) -> SIMD4<Float> {
                    guard x >= 0, x < w, y >= 0, y < h else { return .zero }
                    return Premultiplied.load(s, y * w + x)
                }
                for oy in 0..<size.height {
                    let v = Float(oy) + 0.5 - halfOutH
                    for ox in 0..<size.width {
                        let u = Float(ox) + 0.5 - halfOutW
                        // Inverse rotation (counter-clockwise) back into the source.
                        let sx = u * cosA + v * sinA + halfW - 0.5
                        let sy = -u * sinA + v * cosA + halfH - 0.5
                        var value = SIMD4<Float>.zero
                        if sx > -1 && sy > -1 && sx < Float(w) && sy < Float(h) {
                            let fx0 = sx.rounded(.down)
                            let fy0 = sy.rounded(.down)
                            let x0 = Int(fx0)
                            let y0 = Int(fy0)
                            let fx = sx - fx0
                            let fy = sy - fy0
                            let top = sample(x0, y0) * (1 - fx) + sample(x0 + 1, y0) * fx
                            let bottom = sample(x0, y0 + 1) * (1 - fx) + sample(x0 + 1, y0 + 1) * fx
                            value = top * (1 - fy) + bottom * fy
                        }
                        Premultiplied.store(value, o, oy * size.width + ox)
                    }
                }
            }
        }
    }
}
