import Foundation
import WebImageCore
import WebImageTesting

/// Pixels made at test time: smooth ramps of every hue and brightness (what photographs are
/// mostly made of) plus seeded random colours (saturated corners of the gamut).
enum TestImages {
    static func pattern(width: Int = 96, height: Int = 64, alpha: Bool = false, seed: UInt64 = 24) -> PixelBuffer {
        var random = SeededRandom(seed: seed)
        return PixelBuffer.make(width: width, height: height) { out in
            for y in 0..<height {
                for x in 0..<width {
                    let i = (y * width + x) * 4
                    if y < height / 2 {
                        out[i] = UInt8(x * 255 / (width - 1))
                        out[i + 1] = UInt8(y * 255 / (height / 2 - 1))
                        out[i + 2] = UInt8((x + y) * 255 / (width + height / 2 - 2))
                    } else {
                        out[i] = UInt8(random.below(256))
                        out[i + 1] = UInt8(random.below(256))
                        out[i + 2] = UInt8(random.below(256))
                    }
                    out[i + 3] = alpha ? UInt8((x * 7 + y * 3) % 256) : 255
                }
            }
        }
    }

    /// A grey ramp (R = G = B), opaque.
    static func grayRamp(width: Int = 64, height: Int = 16) -> PixelBuffer {
        PixelBuffer.make(width: width, height: height) { out in
            for y in 0..<height {
                for x in 0..<width {
                    let i = (y * width + x) * 4
                    let v = UInt8((x * 255 / (width - 1) + y) % 256)
                    out[i] = v
                    out[i + 1] = v
                    out[i + 2] = v
                    out[i + 3] = 255
                }
            }
        }
    }
}
