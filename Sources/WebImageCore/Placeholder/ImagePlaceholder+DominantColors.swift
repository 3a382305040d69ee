extension ImagePlaceholder {
    /// The most common colours of `image`, largest share first.
    ///
    /// Computed from ``encoderInput(of:)`` (the first frame within 100 × 100 pixels); see
    /// ``dominantColors(ofPixels:count:)`` for the method.
    /// - Parameters:
    ///   - image: the image; only its first frame is used.
    ///   - count: how many colours, 1…16 (clamped); fewer come back when the image has fewer
    ///     distinct colours.
    public static func dominantColors(of image: Image, count: Int = 5) -> [DominantColor] {
        dominantColors(ofPixels: encoderInput(of: image), count: count)
    }

    /// The most common colours of these pixels (reduced with ``encoderInput(of:)`` when larger
    /// than 100 × 100), largest share first (ties: lower hex first). Deterministic.
    ///
    /// Pixels with alpha below 128 are left out. Median cut: starting from one box around
    /// all pixels, the box with the largest `population × range` is split at the median of
    /// its widest channel until there are `count` boxes; their mean colours then seed 8
    /// rounds of k-means (each pixel to the nearest centre by squared RGB distance, ties to
    /// the earlier centre). Each share is the fraction of counted pixels nearest that colour.
    /// An image with no visible pixel has no dominant colours.
    public static func dominantColors(ofPixels input: PixelBuffer, count: Int = 5) -> [DominantColor] {
        let pixels = reduced(input)
        let wanted = min(16, max(1, count))
        var points: [SIMD3<Int32>] = []
        points.reserveCapacity(pixels.width * pixels.height)
        let bytes = pixels.bytes
        var i = 0
        while i + 3 < bytes.count {
            if bytes[i + 3] >= 128 { points.append(SIMD3(Int32(bytes[i]), Int32(bytes[i + 1]), Int32(bytes[i + 2]))) }
            i += 4
        }
        guard !points.isEmpty else { return [] }
        var centres = MedianCut.boxes(of: &points, count: wanted).map(MedianCut.mean)
        var members = [Int](repeating: 0, count: centres.count)
        for round in 0...8 {
            var sums = [SIMD3<Int64>](repeating: .zero, count: centres.count)
            members = [Int](repeating: 0, count: centres.count)
            for point in points {
                var best = 0
                var bestDistance = Double.infinity
                for (k, centre) in centres.enumerated() {
                    let d = SIMD3<Double>(point) - centre
                    let distance = (d * d).sum()
                    if distance < bestDistance {
                        bestDistance = distance
                        best = k
                    }
                }
                sums[best] &+= SIMD3<Int64>(truncatingIfNeeded: point)
                members[best] += 1
            }
            if round == 8 { break }
            for k in centres.indices where members[k] > 0 {
                centres[k] = SIMD3<Double>(sums[k]) / Double(members[k])
            }
        }
        let total = Double(points.count)
        var colors: [DominantColor] = []
        for k in centres.indices where members[k] > 0 {
            let c = (centres[k] + 0.5).rounded(.down).clamped(lowerBound: .zero, upperBound: SIMD3(repeating: 255))
            colors.append(
                DominantColor(
                    color: RGBA(r: UInt8(c.x), g: UInt8(c.y), b: UInt8(c.z)), share: Double(members[k]) / total))
        }
        return colors.sorted { $0.share != $1.share ? $0.share > $1.share : $0.hex < $1.hex }
    }
}

/// Median-cut boxes over RGB points.
enum MedianCut {
    /// Splits `points` (reordered in place) into at most `count` boxes, as index ranges.
    static func boxes(of points: inout [SIMD3<Int32>], count: Int) -> [ArraySlice<SIMD3<Int32>>] {
        var ranges: [Range<Int>] = [points.indices]
        while ranges.count < count {
            var best: (index: Int, channel: Int, score: Int)?
            for (index, range) in ranges.enumerated() where range.count > 1 {
                let (channel, extent) = widestChannel(points[range])
                let score = extent * range.count
                if extent > 0, score > (best?.score ?? 0) { best = (index, channel, score) }
            }
            guard let best else { break }
            let range = ranges[best.index]
            let channel = best.channel
            // Sort by the widest channel, then the others, so the split never depends on the
            // order pixels arrived in.
            points[range].sort { a, b in
                if a[channel] != b[channel] { return a[channel] < b[channel] }
                if a.x != b.x { return a.x < b.x }
                if a.y != b.y { return a.y < b.y }
                return a.z < b.z
            }
            var middle = range.lowerBound + range.count / 2
            // Keep equal values on one side where possible, so a box of two colours splits
            // into those two colours.
            let pivot = points[middle][channel]
            while middle > range.lowerBound + 1, points[middle - 1][channel] == pivot { middle -= 1 }
            if points[middle - 1][channel] == pivot {
                middle = range.lowerBound + range.count / 2
                while middle < range.upperBound - 1, points[middle][channel] == pivot { middle += 1 }
            }
            ranges[best.index] = range.lowerBound..<middle
            ranges.insert(middle..<range.upperBound, at: best.index + 1)
        }
        return ranges.map { points[$0] }
    }

    /// The channel (0 r, 1 g, 2 b) with the largest max − min, and that extent.
    static func widestChannel(_ points: ArraySlice<SIMD3<Int32>>) -> (Int, Int) {
        var low = SIMD3<Int32>(repeating: 255)
        var high = SIMD3<Int32>(repeating: 0)
        for p in points {
            low = pointwiseMin(low, p)
            high = pointwiseMax(high, p)
        }
        let extent = high &- low
        var channel = 0
        if extent.y > extent[channel] { channel = 1 }
        if extent.z > extent[channel] { channel = 2 }
        return (channel, Int(extent[channel]))
    }

    /// The mean colour of a box.
    static func mean(_ points: ArraySlice<SIMD3<Int32>>) -> SIMD3<Double> {
        var sum = SIMD3<Int64>.zero
        for p in points { sum &+= SIMD3<Int64>(truncatingIfNeeded: p) }
        return SIMD3<Double>(sum) / Double(max(1, points.count))
    }
}
