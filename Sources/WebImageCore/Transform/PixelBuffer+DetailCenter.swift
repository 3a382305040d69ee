extension PixelBuffer {
    /// The centre of the most detailed part of `area` (imgproxy's smart gravity, `g:sm`), in
    /// `area`'s own coordinates: the centroid of local contrast (the luma gradient's magnitude,
    /// weighted by alpha), sampled on a grid of at most 128 × 128 points so the cost does not
    /// grow with the image. An area without contrast gives its middle.
    public func detailCenter(in area: PixelRect) -> (x: Double, y: Double) {
        let step = max(1, max(area.width, area.height) / 128)
        var totalWeight = 0.0, sumX = 0.0, sumY = 0.0
        func luma(_ x: Int, _ y: Int) -> Double {
            let p = pixel(x: x, y: y)
            return (0.299 * Double(p.r) + 0.587 * Double(p.g) + 0.114 * Double(p.b)) * Double(p.a) / 255
        }
        var y = area.y
        while y + step < area.y + area.height {
            var x = area.x
            while x + step < area.x + area.width {
                let here = luma(x, y)
                let weight = abs(luma(x + step, y) - here) + abs(luma(x, y + step) - here)
                totalWeight += weight
                sumX += weight * Double(x - area.x)
                sumY += weight * Double(y - area.y)
                x += step
            }
            y += step
        }
        guard totalWeight > 0 else { return (Double(area.width) / 2, Double(area.height) / 2) }
        return (sumX / totalWeight, sumY / totalWeight)
    }
}
