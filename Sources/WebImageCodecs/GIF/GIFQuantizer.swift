import WebImageCore

/// Reduces straight-alpha RGBA pixels to a GIF palette of at most 256 entries.
///
/// - Pixels with alpha below 128 become the transparent index (GIF has 1-bit transparency),
///   which takes one palette slot.
/// - When the opaque colours fit in the remaining slots they are kept exactly (lossless).
/// - Otherwise a median cut over a 15-bit (5 bits per channel) histogram picks the palette:
///   the box with the most pixels × widest channel range is split at the pixel median of that
///   channel until there are enough boxes; each box's colour is the mean of its pixels. No
///   dithering, so the output is deterministic and compresses well.
enum GIFQuantizer {
    struct Result {
        /// The palette as RGB triples (`count * 3` bytes), at most 256 colours.
        var colors: [UInt8]
        /// The palette index used for transparent pixels, or `nil` when every pixel is opaque.
        var transparentIndex: Int?
        /// One palette index per pixel, rows top to bottom.
        var indices: [UInt8]

        var colorCount: Int { colors.count / 3 }
    }

    /// Alpha values below this are transparent.
    static let alphaThreshold: UInt8 = 128

    /// Quantises `pixels` to at most `maxColors` (2…256) palette entries, the transparent slot
    /// included.
    static func quantize(_ pixels: PixelBuffer, maxColors: Int) -> Result {
        let limit = min(256, max(2, maxColors))
        return pixels.bytes.withUnsafeBufferPointer { src in
            exact(src, limit: limit) ?? medianCut(src, limit: limit)
        }
    }

    /// The lossless path: `nil` when there are more distinct opaque colours than fit.
    private static func exact(_ src: UnsafeBufferPointer<UInt8>, limit: Int) -> Result? {
        var table: [UInt32: UInt8] = [:]
        var colors: [UInt8] = []
        var hasTransparent = false
        let pixelCount = src.count / 4
        var indices = [UInt8](repeating: 0, count: pixelCount)
        var lastKey: UInt32 = .max
        var lastIndex: UInt8 = 0
        for p in 0..<pixelCount {
            let o = p * 4
            if src[o + 3] < alphaThreshold {
                hasTransparent = true
                continue
            }
            let key = UInt32(src[o]) | UInt32(src[o + 1]) << 8 | UInt32(src[o + 2]) << 16
            if key != lastKey {
                if let index = table[key] {
                    lastIndex = index
                } else {
                    guard table.count < 256 else { return nil }
                    lastIndex = UInt8(table.count)
                    table[key] = lastIndex
                    colors.append(contentsOf: [src[o], src[o + 1], src[o + 2]])
                }
                lastKey = key
            }
            indices[p] = lastIndex
        }
        let slots = hasTransparent ? limit - 1 : limit
        guard table.count <= slots else { return nil }
        var transparentIndex: Int?
        if hasTransparent {
            let index = table.count
            colors.append(contentsOf: [0, 0, 0])
            for p in 0..<pixelCount where src[p * 4 + 3] < alphaThreshold { indices[p] = UInt8(index) }
            transparentIndex = index
        }
        if colors.isEmpty { colors = [0, 0, 0] }
        return Result(colors: colors, transparentIndex: transparentIndex, indices: indices)
    }

    /// The lossy path: median cut over a 5-5-5 histogram.
    private static func medianCut(_ src: UnsafeBufferPointer<UInt8>, limit: Int) -> Result {
        let binCount = 1 << 15
        var counts = [Int](repeating: 0, count: binCount)
        var sums = [Int](repeating: 0, count: binCount * 3)
        var hasTransparent = false
        let pixelCount = src.count / 4
        for p in 0..<pixelCount {
            let o = p * 4
            if src[o + 3] < alphaThreshold {
                hasTransparent = true
                continue
            }
            let r = Int(src[o]), g = Int(src[o + 1]), b = Int(src[o + 2])
            let bin = (r >> 3) << 10 | (g >> 3) << 5 | b >> 3
            counts[bin] += 1
            sums[bin * 3] += r
            sums[bin * 3 + 1] += g
            sums[bin * 3 + 2] += b
        }
        var bins = (0..<binCount).filter { counts[$0] > 0 }
        let slots = max(1, hasTransparent ? limit - 1 : limit)

        func component(_ bin: Int, _ channel: Int) -> Int { (bin >> (10 - channel * 5)) & 31 }

        struct Box {
            var start: Int
            var end: Int
            var pixels: Int
            var widestChannel: Int
            var range: Int
        }
        func makeBox(_ start: Int, _ end: Int) -> Box {
            var lo = [31, 31, 31], hi = [0, 0, 0]
            var total = 0
            for i in start..<end {
                let bin = bins[i]
                total += counts[bin]
                for c in 0..<3 {
                    let v = component(bin, c)
                    lo[c] = min(lo[c], v)
                    hi[c] = max(hi[c], v)
                }
            }
            var widest = 0
            for c in 1..<3 where hi[c] - lo[c] > hi[widest] - lo[widest] { widest = c }
            return Box(start: start, end: end, pixels: total, widestChannel: widest, range: hi[widest] - lo[widest])
        }

        var boxes: [Box] = bins.isEmpty ? [] : [makeBox(0, bins.count)]
        while boxes.count < slots {
            var best = -1
            var bestScore = 0
            for (i, box) in boxes.enumerated() where box.end - box.start > 1 && box.range > 0 {
                let score = box.pixels * box.range
                if score > bestScore {
                    bestScore = score
                    best = i
                }
            }
            guard best >= 0 else { break }
            let box = boxes[best]
            let channel = box.widestChannel
            bins[box.start..<box.end].sort { component($0, channel) < component($1, channel) }
            var cumulative = 0
            var split = box.start + 1
            for i in box.start..<(box.end - 1) {
                cumulative += counts[bins[i]]
                split = i + 1
                if cumulative * 2 >= box.pixels { break }
            }
            boxes[best] = makeBox(box.start, split)
            boxes.append(makeBox(split, box.end))
        }

        var binIndex = [UInt8](repeating: 0, count: binCount)
        var colors: [UInt8] = []
        for (index, box) in boxes.enumerated() {
            var r = 0, g = 0, b = 0
            for i in box.start..<box.end {
                let bin = bins[i]
                binIndex[bin] = UInt8(index)
                r += sums[bin * 3]
                g += sums[bin * 3 + 1]
                b += sums[bin * 3 + 2]
            }
            let n = max(1, box.pixels)
            colors.append(contentsOf: [UInt8((r + n / 2) / n), UInt8((g + n / 2) / n), UInt8((b + n / 2) / n)])
        }
        let transparentIndex: Int? = hasTransparent ? boxes.count : nil
        if hasTransparent { colors.append(contentsOf: [0, 0, 0]) }
        if colors.isEmpty { colors = [0, 0, 0] }
        let transparentByte = UInt8(truncatingIfNeeded: transparentIndex ?? 0)
        var indices = [UInt8](repeating: 0, count: pixelCount)
        for p in 0..<pixelCount {
            let o = p * 4
            if src[o + 3] < alphaThreshold {
                indices[p] = transparentByte
            } else {
                let bin = (Int(src[o]) >> 3) << 10 | (Int(src[o + 1]) >> 3) << 5 | Int(src[o + 2]) >> 3
                indices[p] = binIndex[bin]
            }
        }
        return Result(colors: colors, transparentIndex: transparentIndex, indices: indices)
    }
}
