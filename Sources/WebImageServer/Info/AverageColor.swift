import WebImage

/// A colour in `/info`'s palette and average shapes (imgproxy's `{"R":…,"G":…,"B":…,"A":…}`).
struct InfoColor: Sendable, Encodable, Hashable {
    var R: Int
    var G: Int
    var B: Int
    var A: Int
}

enum AverageColor {
    /// The mean of `image`'s first frame, each channel rounded; with `ignoreTransparent`, fully
    /// transparent pixels are left out (all of them transparent: 0, 0, 0, 0).
    static func average(_ image: Image, ignoreTransparent: Bool) -> InfoColor {
        let bytes = image.pixels.convertedToRGBA8().bytes
        var sums = [Int](repeating: 0, count: 4)
        var count = 0
        var index = 0
        while index < bytes.count {
            if !ignoreTransparent || bytes[index + 3] != 0 {
                for channel in 0..<4 { sums[channel] += Int(bytes[index + channel]) }
                count += 1
            }
            index += 4
        }
        guard count > 0 else { return InfoColor(R: 0, G: 0, B: 0, A: 0) }
        let mean = sums.map { Int((Double($0) / Double(count)).rounded()) }
        return InfoColor(R: mean[0], G: mean[1], B: mean[2], A: mean[3])
    }
}
