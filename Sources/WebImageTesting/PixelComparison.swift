import Foundation
import WebImageCore

/// How far apart two pixel buffers are. Fully transparent pixels compare equal whatever their
/// colour (their RGB carries no information in straight alpha).
public struct PixelDifference: Sendable, CustomStringConvertible {
    /// Largest absolute difference of any channel.
    public let maxChannelDifference: Int
    /// Mean absolute channel difference.
    public let meanDifference: Double
    /// Peak signal-to-noise ratio in dB (`.infinity` for identical buffers).
    public let psnr: Double

    public var description: String {
        String(format: "max %d, mean %.3f, PSNR %.2f dB", maxChannelDifference, meanDifference, psnr)
    }

    /// Compares two buffers of the same size.
    public static func between(_ a: PixelBuffer, _ b: PixelBuffer) -> PixelDifference? {
        guard a.width == b.width, a.height == b.height else { return nil }
        var maxDiff = 0
        var sum = 0.0
        var squares = 0.0
        let x = a.bytes
        let y = b.bytes
        var i = 0
        while i < x.count {
            if x[i + 3] == 0 && y[i + 3] == 0 {
                i += 4
                continue
            }
            for c in 0..<4 {
                let d = abs(Int(x[i + c]) - Int(y[i + c]))
                maxDiff = max(maxDiff, d)
                sum += Double(d)
                squares += Double(d * d)
            }
            i += 4
        }
        let n = Double(x.count)
        let mse = squares / n
        let psnr = mse == 0 ? Double.infinity : 10 * log10(255 * 255 / mse)
        return PixelDifference(maxChannelDifference: maxDiff, meanDifference: sum / n, psnr: psnr)
    }
}
