import Foundation
import WebImage

/// A perceptual hash of an image (`/info`'s `perceptual_hash`): the image's luma reduced to
/// 32×32 (area average), its 2-D DCT-II, and the 8×8 lowest frequencies compared to their
/// median — one bit each, the first (DC) as the most significant — written as 16 hex digits.
/// Similar images differ in few bits (compare with the Hamming distance).
enum PerceptualHash {
    /// The side the luma is reduced to.
    static let side = 32
    /// The side of the block of low frequencies kept.
    static let kept = 8

    /// The hash of `image`'s first frame, composited over white.
    static func hash(_ image: Image) -> String {
        let small = Resampler(filter: .box).resample(image.pixels, to: PixelSize(width: side, height: side)).convertedToRGBA8()
        var luma = [Double](repeating: 0, count: side * side)
        let bytes = small.bytes
        for index in 0..<(side * side) {
            let alpha = Double(bytes[index * 4 + 3]) / 255
            let y = 0.299 * Double(bytes[index * 4]) + 0.587 * Double(bytes[index * 4 + 1]) + 0.114 * Double(bytes[index * 4 + 2])
            luma[index] = y * alpha + 255 * (1 - alpha)
        }
        let cosines = (0..<kept).map { u in
            (0..<side).map { x in cos(Double((2 * x + 1) * u) * .pi / Double(2 * side)) }
        }
        // Rows first, then columns, only the kept frequencies.
        var rows = [Double](repeating: 0, count: side * kept)
        for y in 0..<side {
            for u in 0..<kept {
                var sum = 0.0
                for x in 0..<side { sum += luma[y * side + x] * cosines[u][x] }
                rows[y * kept + u] = sum
            }
        }
        var coefficients = [Double](repeating: 0, count: kept * kept)
        for v in 0..<kept {
            for u in 0..<kept {
                var sum = 0.0
                for y in 0..<side { sum += rows[y * kept + u] * cosines[v][y] }
                coefficients[v * kept + u] = sum
            }
        }
        let sorted = coefficients.sorted()
        let median = (sorted[kept * kept / 2 - 1] + sorted[kept * kept / 2]) / 2
        var bits: UInt64 = 0
        for value in coefficients { bits = bits << 1 | (value > median ? 1 : 0) }
        return String(bits, radix: 16).leftPadded(to: 16)
    }
}
