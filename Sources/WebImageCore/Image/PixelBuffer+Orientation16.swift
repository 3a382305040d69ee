extension PixelBuffer {
    /// ``applying(_:)`` for an RGBA16 buffer: each pixel moved as one 8-byte word.
    func applying16(_ orientation: ImageOrientation) -> PixelBuffer {
        let w = width
        let h = height
        let outW = orientation.swapsDimensions ? h : w
        let outH = orientation.swapsDimensions ? w : h
        return bytes.withUnsafeBytes { raw in
            let src = raw.bindMemory(to: UInt64.self)
            return PixelBuffer.make16(width: outW, height: outH) { out in
                out.withMemoryRebound(to: UInt64.self) { dst in
                    for y in 0..<h {
                        for x in 0..<w {
                            let (dx, dy) = orientation.destination(x: x, y: y, width: w, height: h)
                            dst[dy * outW + dx] = src[y * w + x]
                        }
                    }
                }
            }
        }
    }
}

extension ImageOrientation {
    /// Where source pixel (`x`, `y`) of a `width × height` image lands when turned upright.
    func destination(x: Int, y: Int, width w: Int, height h: Int) -> (Int, Int) {
        switch self {
        case .up: return (x, y)
        case .upMirrored: return (w - 1 - x, y)
        case .down: return (w - 1 - x, h - 1 - y)
        case .downMirrored: return (x, h - 1 - y)
        case .leftMirrored: return (y, x)
        case .right: return (h - 1 - y, x)
        case .rightMirrored: return (h - 1 - y, w - 1 - x)
        case .left: return (y, w - 1 - x)
        }
    }
}
