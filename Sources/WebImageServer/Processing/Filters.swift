import WebImage

/// `sharpen`: an unsharp mask, `p + (p − blur(p, σ))` per colour channel, alpha kept.
enum Sharpening {
    static func sharpened(_ pixels: PixelBuffer, sigma: Double) -> PixelBuffer {
        let blurred = pixels.blurredExactly(sigma: min(sigma, 8))
        return PixelBuffer.make(width: pixels.width, height: pixels.height) { out in
            pixels.bytes.withUnsafeBufferPointer { source in
                blurred.bytes.withUnsafeBufferPointer { soft in
                    for index in 0..<source.count {
                        if index % 4 == 3 { out[index] = source[index]; continue }
                        let value = 2 * Int(source[index]) - Int(soft[index])
                        out[index] = UInt8(clamping: value)
                    }
                }
            }
        }
    }
}

/// `trim`: the smallest box holding every pixel that differs from the background colour by
/// more than the threshold (in any channel, alpha included).
enum Trimming {
    static func box(of pixels: PixelBuffer, trim: TrimOptions) -> PixelRect? {
        let reference: [Int]
        if let color = trim.color {
            reference = [Int(color.red), Int(color.green), Int(color.blue), 255]
        } else {
            let corner = pixels.pixel(x: 0, y: 0)
            reference = [Int(corner.r), Int(corner.g), Int(corner.b), Int(corner.a)]
        }
        let threshold = Int(trim.threshold)
        var minX = pixels.width, minY = pixels.height, maxX = -1, maxY = -1
        pixels.bytes.withUnsafeBufferPointer { bytes in
            for y in 0..<pixels.height {
                for x in 0..<pixels.width {
                    let index = (y * pixels.width + x) * 4
                    var differs = false
                    for channel in 0..<4 where abs(Int(bytes[index + channel]) - reference[channel]) > threshold {
                        differs = true
                    }
                    if differs {
                        minX = min(minX, x); maxX = max(maxX, x); minY = min(minY, y); maxY = max(maxY, y)
                    }
                }
            }
        }
        guard maxX >= 0 else { return nil }
        if trim.equalHorizontal {
            let cut = min(minX, pixels.width - 1 - maxX)
            (minX, maxX) = (cut, pixels.width - 1 - cut)
        }
        if trim.equalVertical {
            let cut = min(minY, pixels.height - 1 - maxY)
            (minY, maxY) = (cut, pixels.height - 1 - cut)
        }
        return PixelRect(x: minX, y: minY, width: maxX - minX + 1, height: maxY - minY + 1)
    }
}

/// `g:sm`: the centroid of local contrast (luma gradient magnitude) over the area, sampled on a
/// grid of at most 128 × 128 points so the cost does not grow with the image.
enum SmartGravity {
    static func center(of pixels: PixelBuffer, in area: PixelRect) -> (x: Double, y: Double) {
        let step = max(1, max(area.width, area.height) / 128)
        var totalWeight = 0.0, sumX = 0.0, sumY = 0.0
        func luma(_ x: Int, _ y: Int) -> Double {
            let p = pixels.pixel(x: x, y: y)
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
