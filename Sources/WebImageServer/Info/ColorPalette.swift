import WebImage

/// `/info`'s `palette`: at most N colours of an image by median cut over its RGBA pixels —
/// the box with the widest channel range split at its median until there are N boxes (or no
/// box holds two different colours) — each the rounded mean of its pixels, the most common
/// first.
enum ColorPalette {
    /// At most `count` colours of `image`'s first frame.
    static func palette(_ image: Image, count: Int) -> [InfoColor] {
        let bytes = image.pixels.convertedToRGBA8().bytes
        var pixels: [SIMD4<UInt8>] = []
        pixels.reserveCapacity(bytes.count / 4)
        var index = 0
        while index < bytes.count {
            pixels.append(SIMD4(bytes[index], bytes[index + 1], bytes[index + 2], bytes[index + 3]))
            index += 4
        }
        var boxes = [Box(pixels[...])]
        while boxes.count < count {
            // The box with the widest range on one channel.
            guard let widest = boxes.indices.filter({ boxes[$0].range > 0 }).max(by: { boxes[$0].range < boxes[$1].range }) else { break }
            let channel = boxes[widest].channel
            let sorted = boxes[widest].pixels.sorted { $0[channel] < $1[channel] }
            var middle = sorted.count / 2
            // Split between different values, so both halves are non-empty.
            let pivot = sorted[middle][channel]
            if sorted[0][channel] == pivot {
                while middle < sorted.count, sorted[middle][channel] == pivot { middle += 1 }
            } else {
                while middle > 0, sorted[middle - 1][channel] == pivot { middle -= 1 }
            }
            boxes[widest] = Box(sorted[..<middle])
            boxes.append(Box(sorted[middle...]))
        }
        let colors = boxes.map { box -> (InfoColor, Int) in
            var sums = [Int](repeating: 0, count: 4)
            for pixel in box.pixels { for channel in 0..<4 { sums[channel] += Int(pixel[channel]) } }
            let mean = sums.map { Int((Double($0) / Double(box.pixels.count)).rounded()) }
            return (InfoColor(R: mean[0], G: mean[1], B: mean[2], A: mean[3]), box.pixels.count)
        }
        return colors.sorted { $0.1 > $1.1 }.map(\.0)
    }

    /// Pixels of one box with its widest channel and that channel's range.
    private struct Box {
        let pixels: ArraySlice<SIMD4<UInt8>>
        let channel: Int
        let range: Int

        init(_ pixels: ArraySlice<SIMD4<UInt8>>) {
            self.pixels = pixels
            let low = pixels.reduce(SIMD4<UInt8>(repeating: 255)) { pointwiseMin($0, $1) }
            let high = pixels.reduce(SIMD4<UInt8>(repeating: 0)) { pointwiseMax($0, $1) }
            var widest = (channel: 0, range: 0)
            for channel in 0..<4 where Int(high[channel]) - Int(low[channel]) > widest.range {
                widest = (channel, Int(high[channel]) - Int(low[channel]))
            }
            (channel, range) = widest
        }
    }
}
