import Foundation

/// Linear-light RGB pixels of an HDR rendition: three `Float`s a pixel, rows top to bottom,
/// 1.0 = SDR white, values above 1 brighter than it.
public struct LinearRGBPixels: Sendable {
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// `width · height · 3` values: red, green, blue.
    public let values: [Float]
}

extension GainMap {
    /// The HDR rendition of `base` (sRGB-encoded, the decoders' default output, of the size
    /// this map belongs to) on a display with `displayHeadroom` (linear, ≥ 1) over SDR white,
    /// as ISO 21496-1 defines it (SPEC H-5):
    ///
    /// - the map is sampled at every base pixel bilinearly, as libultrahdr upsamples a map
    ///   stored at a fraction of the base;
    /// - per channel, `G = 2^(w · (min + (max − min) · v^(1/γ)))` where `v` is the map value
    ///   (0…1) and `w = clamp((log2 H_display − baseHeadroom) / (alternateHeadroom − baseHeadroom), 0, 1)`
    ///   (`1 − w` when the base is the HDR rendition);
    /// - `HDR = (B + k_base) · G − k_alt` on the base's linear values `B`.
    ///
    /// A display at or below the base headroom gets the base; one at the alternate headroom or
    /// above gets the full gain.
    public func hdrRendition(of base: PixelBuffer, displayHeadroom: Double) -> LinearRGBPixels {
        let width = base.width, height = base.height
        let span = metadata.alternateHeadroom - metadata.baseHeadroom
        var weight = span > 0 ? min(1, max(0, (log2(max(displayHeadroom, 1e-6)) - metadata.baseHeadroom) / span)) : 1
        if metadata.baseIsHDR { weight = 1 - weight }
        let channels = (0..<3).map { metadata.channels[min($0, metadata.channels.count - 1)] }
        // Per channel: code (0…255, read through the bilinear weights as a real number) → log2 gain.
        let srgb: [Float] = (0...255).map { code in
            let v = Double(code) / 255
            return Float(v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4))
        }
        let map = pixels.bytes, mapWidth = pixels.width, mapHeight = pixels.height
        let fx = Double(mapWidth) / Double(width), fy = Double(mapHeight) / Double(height)
        var out = [Float](repeating: 0, count: width * height * 3)
        let bytes = base.bytes
        for y in 0..<height {
            let my = min(Double(mapHeight - 1), max(0, (Double(y) + 0.5) * fy - 0.5))
            let y0 = Int(my), y1 = min(mapHeight - 1, y0 + 1), ty = my - Double(y0)
            for x in 0..<width {
                let mx = min(Double(mapWidth - 1), max(0, (Double(x) + 0.5) * fx - 0.5))
                let x0 = Int(mx), x1 = min(mapWidth - 1, x0 + 1), tx = mx - Double(x0)
                let i = (y * width + x) * 4
                for c in 0..<3 {
                    let mc = channelCount == 1 ? 0 : c
                    func at(_ px: Int, _ py: Int) -> Double { Double(map[(py * mapWidth + px) * 4 + mc]) }
                    let top = at(x0, y0) + (at(x1, y0) - at(x0, y0)) * tx
                    let bottom = at(x0, y1) + (at(x1, y1) - at(x0, y1)) * tx
                    let v = (top + (bottom - top) * ty) / 255
                    let p = channels[c]
                    let log2Gain = p.gainMapMin + (p.gainMapMax - p.gainMapMin) * pow(v, 1 / p.gamma)
                    let gain = pow(2, log2Gain * weight)
                    let b = Double(srgb[Int(bytes[i + c])])
                    out[(y * width + x) * 3 + c] = Float((b + p.baseOffset) * gain - p.alternateOffset)
                }
            }
        }
        return LinearRGBPixels(width: width, height: height, values: out)
    }
}
