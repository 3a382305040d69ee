import WebImageCore

/// The APNG canvas: applies each frame's blend op and the previous frame's dispose op, and
/// hands out the composited canvas after every frame. Straight alpha throughout.
struct APNGCompositor {
    let width: Int
    let height: Int
    /// The canvas, RGBA8 straight alpha, starting fully transparent.
    private var canvas: [UInt8]
    /// The region saved for a frame whose dispose op is `previous`.
    private var saved: [UInt8] = []
    /// The previous frame's region and dispose op, applied before the next frame.
    private var pending: APNGFrameControl?

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
        canvas = [UInt8](repeating: 0, count: width * height * PixelBuffer.bytesPerPixel)
    }

    /// Renders `pixels` (the frame at its own size) with `control`, returning the canvas.
    mutating func render(_ pixels: PixelBuffer, control: APNGFrameControl) -> PixelBuffer {
        if let previous = pending {
            switch previous.dispose {
            case .none: break
            case .background: clear(previous)
            case .previous: restore(previous)
            }
        }
        if control.dispose == .previous { save(control) }
        draw(pixels, control: control)
        pending = control
        return canvas.withUnsafeBufferPointer { source in
            PixelBuffer.make(width: width, height: height) { out in
                _ = out.initialize(from: source)
            }
        }
    }

    private var rowBytes: Int { width * PixelBuffer.bytesPerPixel }

    private func span(_ c: APNGFrameControl, row: Int) -> Range<Int> {
        let start = (c.y + row) * rowBytes + c.x * PixelBuffer.bytesPerPixel
        return start..<(start + c.width * PixelBuffer.bytesPerPixel)
    }

    private mutating func clear(_ c: APNGFrameControl) {
        for row in 0..<c.height {
            canvas.replaceSubrange(span(c, row: row), with: repeatElement(0, count: c.width * PixelBuffer.bytesPerPixel))
        }
    }

    private mutating func save(_ c: APNGFrameControl) {
        saved.removeAll(keepingCapacity: true)
        for row in 0..<c.height { saved.append(contentsOf: canvas[span(c, row: row)]) }
    }

    private mutating func restore(_ c: APNGFrameControl) {
        let rowLength = c.width * PixelBuffer.bytesPerPixel
        guard saved.count == rowLength * c.height else { return }
        for row in 0..<c.height {
            canvas.replaceSubrange(span(c, row: row), with: saved[(row * rowLength)..<((row + 1) * rowLength)])
        }
    }

    private mutating func draw(_ pixels: PixelBuffer, control c: APNGFrameControl) {
        let rowLength = c.width * PixelBuffer.bytesPerPixel
        let src = pixels.bytes
        let rowBytes = self.rowBytes
        canvas.withUnsafeMutableBufferPointer { dst in
            src.withUnsafeBufferPointer { src in
                for row in 0..<c.height {
                    let s = row * rowLength
                    let d = (c.y + row) * rowBytes + c.x * PixelBuffer.bytesPerPixel
                    switch c.blend {
                    case .source:
                        _ = UnsafeMutableBufferPointer(rebasing: dst[d..<(d + rowLength)])
                            .update(fromContentsOf: src[s..<(s + rowLength)])
                    case .over:
                        var i = 0
                        while i < rowLength {
                            Self.over(src, s + i, dst, d + i)
                            i += 4
                        }
                    }
                }
            }
        }
    }

    /// Straight-alpha "over": out.a = sa + da·(1−sa); out.c = (sc·sa + dc·da·(1−sa)) / out.a.
    @inline(__always)
    private static func over(
        _ src: UnsafeBufferPointer<UInt8>, _ s: Int, _ dst: UnsafeMutableBufferPointer<UInt8>, _ d: Int
    ) {
        let sa = Int(src[s + 3])
        if sa == 255 {
            for k in 0..<4 { dst[d + k] = src[s + k] }
            return
        }
        if sa == 0 { return }
        let da = Int(dst[d + 3])
        let weightedDst = da * (255 - sa)  // dest alpha × (1 − sa), scaled by 255²
        let outA255 = sa * 255 + weightedDst  // output alpha scaled by 255
        for k in 0..<3 {
            let value = (Int(src[s + k]) * sa * 255 + Int(dst[d + k]) * weightedDst + outA255 / 2) / outA255
            dst[d + k] = UInt8(min(255, value))
        }
        dst[d + 3] = UInt8(min(255, (outA255 + 127) / 255))
    }
}
