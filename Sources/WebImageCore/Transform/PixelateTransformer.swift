/// Pixelates every frame: the image becomes blocks of ``blockSize`` × ``blockSize`` pixels,
/// each the average colour of the pixels it covers (SPEC T-2, imgproxy's `pixelate`).
///
/// Blocks start at the top-left corner. A block cut by the right or bottom edge averages as if
/// the image went on mirrored at that edge (the edge pixel repeated, then the ones before it),
/// as imgproxy's libvips mirror extension does; a block larger than the image's longer side
/// counts as that side. Averages are premultiplied, so transparent pixels do not darken a
/// block. The output has the input's size.
///
/// Key: `PixelateTransformer(size=8)`.
public struct PixelateTransformer: ImageTransformer {
    /// The block side in pixels; 1 leaves the image unchanged.
    public let blockSize: Int

    /// Creates a pixelation with blocks of `blockSize` pixels (values below 1 count as 1).
    public init(blockSize: Int) {
        self.blockSize = max(1, blockSize)
    }

    public var transformerKey: String { "PixelateTransformer(size=\(blockSize))" }

    public func transform(_ image: Image, key: String) -> Image? {
        // 8-bit only: a 16-bit image is converted first (SPEC H-1).
        let image = image.convertedToRGBA8()
        if blockSize == 1 { return image }
        let size = min(blockSize, max(image.width, image.height))
        if size <= 1 { return image }
        return image.mappingFrames { $0.pixelated(blockSize: size) }
    }
}

extension PixelBuffer {
    /// The buffer in blocks of `blockSize` pixels (see ``PixelateTransformer``).
    func pixelated(blockSize n: Int) -> PixelBuffer {
        let w = width
        let h = height
        return bytes.withUnsafeBufferPointer { source in
            PixelBuffer.make(width: w, height: h) { out in
                guard let src = source.baseAddress, let dst = out.baseAddress else { return }
                let count = Float(n * n)
                var by = 0
                while by < h {
                    var bx = 0
                    while bx < w {
                        var sum = SIMD4<Float>(repeating: 0)
                        for y in by..<(by + n) {
                            let row = PixelBuffer.mirrored(y, h) * w
                            for x in bx..<(bx + n) {
                                sum += Premultiplied.load(src, row + PixelBuffer.mirrored(x, w))
                            }
                        }
                        let mean = sum / count
                        for y in by..<Swift.min(by + n, h) {
                            for x in bx..<Swift.min(bx + n, w) {
                                Premultiplied.store(mean, dst, y * w + x)
                            }
                        }
                        bx += n
                    }
                    by += n
                }
            }
        }
    }

    /// Coordinate `i` of an axis of `length` pixels extended by mirroring, edge pixel included:
    /// `…, 1, 0 | 0, 1, …, n−1 | n−1, n−2, …`.
    @inline(__always)
    static func mirrored(_ i: Int, _ length: Int) -> Int {
        let m = i % (2 * length)
        return m < length ? m : 2 * length - 1 - m
    }
}
