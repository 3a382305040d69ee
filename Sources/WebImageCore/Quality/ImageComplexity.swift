/// A cheap measure of how much detail an image has, for predicting the encoder quality a
/// perceptual target needs (SPEC V-15): the mean absolute difference of luma between each
/// sampled pixel and its right and lower neighbours, on a 0…255 scale. A flat graphic scores
/// near 0, a smooth photo a few units, fine texture or noise tens of units.
///
/// At most about 256×256 pixels are sampled (a regular grid over the image), each against its
/// immediate neighbours, so the measure sees full-resolution edges at a fixed cost. Pixels are
/// weighted by their alpha, so fully transparent areas count as flat.
public enum ImageComplexity {
    /// The largest number of sampled positions along each axis.
    public static let samplesPerAxis = 256

    /// The complexity of `pixels` (0 for an image smaller than 2×2).
    public static func measure(_ pixels: PixelBuffer) -> Double {
        let width = pixels.width, height = pixels.height
        guard width >= 2, height >= 2 else { return 0 }
        let stepX = max(1, (width - 1) / samplesPerAxis), stepY = max(1, (height - 1) / samplesPerAxis)
        let rowBytes = pixels.bytesPerRow
        var total = 0.0, count = 0
        pixels.bytes.withUnsafeBufferPointer { bytes in
            func luma(_ offset: Int) -> Int {
                let value = 2 * Int(bytes[offset]) + 5 * Int(bytes[offset + 1]) + Int(bytes[offset + 2])
                return value * Int(bytes[offset + 3]) / 255
            }
            var y = 0
            while y < height - 1 {
                var rowSum = 0
                var x = 0
                while x < width - 1 {
                    let here = y * rowBytes + x * 4
                    let centre = luma(here)
                    rowSum += abs(luma(here + 4) - centre) + abs(luma(here + rowBytes) - centre)
                    count += 1
                    x += stepX
                }
                total += Double(rowSum)
                y += stepY
            }
        }
        // Luma above is in eighths; two differences per sample.
        return count == 0 ? 0 : total / Double(count) / 16
    }
}
