/// Composites a watermark image over every frame (SPEC T-2), with imgproxy's semantics for
/// `watermark:%opacity:%position:%x_offset:%y_offset:%scale`.
///
/// - **Scale**: 0 keeps the watermark's own size; above 0 the watermark is resized (Lanczos3,
///   enlarging allowed, aspect ratio kept) to fit inside `round(width·scale) ×
///   round(height·scale)` of the image it goes on.
/// - **Offsets**: a value of magnitude 1 or more is pixels, below 1 a fraction of the image's
///   width (x) or height (y); rounding is half to even, as imgproxy's.
/// - **Position** (``WatermarkPosition``): centred at `round((W − w + 1) / 2) + x` (and alike
///   down); an edge position puts that side at its edge moved *inwards* by the offset
///   (`ea`: left = W − w − x; `so`: top = H − h − y; `no`/`we`: the offset from the top/left).
///   The watermark may hang over the edge but keeps at least one pixel inside.
/// - **Tiled** (``WatermarkPosition/replicate``): the offsets (negative counts as 0) are gaps:
///   each tile is the watermark with ⌊x/2⌋ pixels on its left and the rest on its right (rows
///   alike), the tiles form an odd number of columns and rows covering the image, and the grid
///   is centred on it.
/// - **Opacity** 0…1 multiplies the watermark's alpha; compositing is source-over on
///   premultiplied values. The image's own alpha is kept where the watermark is absent.
///
/// Only the watermark's first frame is used. Key:
/// `WatermarkTransformer(mark=<hash>,opacity=0.5,position=soea,x=10,y=10,scale=0.25)`, where
/// `<hash>` is a 64-bit FNV-1a of the watermark's size and pixels.
public struct WatermarkTransformer: ImageTransformer {
    /// The watermark (its first frame).
    public let watermark: PixelBuffer
    /// 0…1, multiplied into the watermark's alpha.
    public let opacity: Double
    /// Where the watermark goes.
    public let position: WatermarkPosition
    /// Horizontal offset: pixels when |x| ≥ 1, else a fraction of the image's width.
    public let xOffset: Double
    /// Vertical offset: pixels when |y| ≥ 1, else a fraction of the image's height.
    public let yOffset: Double
    /// 0: the watermark's own size; above 0: fit inside this fraction of the image.
    public let scale: Double
    /// Identifies the watermark's pixels in ``transformerKey``.
    private let markHash: UInt64

    /// Creates a watermark transformer. `opacity` is clamped to 0…1; a negative or non-finite
    /// `scale` counts as 0 and non-finite offsets as 0.
    public init(
        watermark: Image, opacity: Double = 1, position: WatermarkPosition = .center, xOffset: Double = 0,
        yOffset: Double = 0, scale: Double = 0
    ) {
        self.watermark = watermark.pixels.convertedToRGBA8()
        self.opacity = opacity.isFinite ? min(1, max(0, opacity)) : 1
        self.position = position
        self.xOffset = xOffset.isFinite ? xOffset : 0
        self.yOffset = yOffset.isFinite ? yOffset : 0
        self.scale = scale.isFinite && scale > 0 ? scale : 0
        self.markHash = Self.fnv1a(self.watermark)
    }

    public var transformerKey: String {
        let mark = String(markHash, radix: 16)
        return "WatermarkTransformer(mark=\(mark),opacity=\(keyNumber(opacity)),position=\(position.rawValue),"
            + "x=\(keyNumber(xOffset)),y=\(keyNumber(yOffset)),scale=\(keyNumber(scale)))"
    }

    /// The watermark's size on an image of `size` pixels (see ``scale``).
    public func markSize(on size: PixelSize) -> PixelSize {
        let own = PixelSize(width: watermark.width, height: watermark.height)
        guard scale > 0 else { return own }
        let boxW = max(1, Self.halfToEven(Double(size.width) * scale))
        let boxH = max(1, Self.halfToEven(Double(size.height) * scale))
        let factor = min(Double(boxW) / Double(own.width), Double(boxH) / Double(own.height))
        let w = max(1, min(boxW, Int((Double(own.width) * factor).rounded())))
        let h = max(1, min(boxH, Int((Double(own.height) * factor).rounded())))
        return PixelSize(width: w, height: h)
    }

    /// Where the watermark goes on an image of `size` pixels, for every position but
    /// ``WatermarkPosition/replicate`` (which gives its centre tile's watermark; see
    /// ``tiling(on:)``). The rectangle may reach past the edges (it is clipped when drawn).
    public func placement(on size: PixelSize) -> PixelRect {
        if let tiling = tiling(on: size) {
            return tiling.rect(column: tiling.columns / 2, row: tiling.rows / 2)
        }
        let mark = markSize(on: size)
        let offX = offset(xOffset, of: size.width)
        let offY = offset(yOffset, of: size.height)
        var left = Self.halfToEven(Double(size.width - mark.width + 1) / 2) + offX
        var top = Self.halfToEven(Double(size.height - mark.height + 1) / 2) + offY
        switch position {
        case .north, .northEast, .northWest: top = offY
        case .south, .southEast, .southWest: top = size.height - mark.height - offY
        default: break
        }
        switch position {
        case .east, .northEast, .southEast: left = size.width - mark.width - offX
        case .west, .northWest, .southWest: left = offX
        default: break
        }
        left = max(-mark.width + 1, min(left, size.width - 1))
        top = max(-mark.height + 1, min(top, size.height - 1))
        return PixelRect(x: left, y: top, width: mark.width, height: mark.height)
    }

    /// The tile grid on an image of `size` pixels for ``WatermarkPosition/replicate``, `nil`
    /// for the other positions.
    public func tiling(on size: PixelSize) -> WatermarkTiling? {
        guard position == .replicate else { return nil }
        let mark = markSize(on: size)
        let gapX = max(0, offset(xOffset, of: size.width))
        let gapY = max(0, offset(yOffset, of: size.height))
        let tileW = mark.width + gapX
        let tileH = mark.height + gapY
        var across = (size.width + tileW - 1) / tileW
        var down = (size.height + tileH - 1) / tileH
        if across % 2 == 0 { across += 1 }
        if down % 2 == 0 { down += 1 }
        return WatermarkTiling(
            first: PixelRect(
                x: gapX / 2 - (across * tileW - size.width) / 2, y: gapY / 2 - (down * tileH - size.height) / 2,
                width: mark.width, height: mark.height),
            stepX: tileW, stepY: tileH, columns: across, rows: down)
    }

    public func transform(_ image: Image, key: String) -> Image? {
        // 8-bit only: a 16-bit image is converted first (SPEC H-1).
        let image = image.convertedToRGBA8()
        let size = image.pixelSize
        let markSize = markSize(on: size)
        // A mark larger than the pixel limit is never made (a huge scale on a huge image).
        guard isAllowedOutput(width: markSize.width, height: markSize.height) else { return nil }
        let mark =
            markSize.width == watermark.width && markSize.height == watermark.height
            ? watermark : Resampler(filter: .lanczos3).resample(watermark, to: markSize)
        let alpha = Float(opacity)
        if let tiling = tiling(on: size) {
            return image.mappingFrames { $0.compositing(mark, tiledAs: tiling, opacity: alpha) }
        }
        let rect = placement(on: size)
        return image.mappingFrames { $0.compositing(mark, at: rect, opacity: alpha) }
    }

    /// 64-bit FNV-1a over the buffer's width, height (8 bytes each, little-endian) and bytes.
    private static func fnv1a(_ pixels: PixelBuffer) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        func mix(_ byte: UInt8) { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        for value in [UInt64(pixels.width), UInt64(pixels.height)] {
            for shift in stride(from: 0, to: 64, by: 8) { mix(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
        }
        for byte in pixels.bytes { mix(byte) }
        return hash
    }

    private func offset(_ value: Double, of length: Int) -> Int {
        if abs(value) >= 1 { return Self.halfToEven(value) }
        return Self.halfToEven(Double(length) * value)
    }

    /// Rounded half to even and clamped to ±2³⁰, so later sums cannot overflow.
    private static func halfToEven(_ value: Double) -> Int {
        Int(max(-1_073_741_824, min(1_073_741_824, value.rounded(.toNearestOrEven))))
    }
}

extension PixelBuffer {
    /// A copy with `mark` composited source-over (premultiplied) at `rect` (clipped), its alpha
    /// multiplied by `opacity`.
    func compositing(_ mark: PixelBuffer, at rect: PixelRect, opacity: Float) -> PixelBuffer {
        guard let clip = rect.clipped(to: PixelSize(width: width, height: height)) else { return self }
        return compositing(mark, opacity: opacity, rows: clip.y..<(clip.y + clip.height), columns: clip.x..<(clip.x + clip.width)) { x, y in
            (y - rect.y) * mark.width + (x - rect.x)
        }
    }

    /// A copy with `mark` composited at every tile of `tiling`: each pixel finds its place in
    /// its tile by remainder, so the work is one pass over the image whatever the tile count.
    func compositing(_ mark: PixelBuffer, tiledAs tiling: WatermarkTiling, opacity: Float) -> PixelBuffer {
        let stepX = tiling.stepX
        let stepY = tiling.stepY
        let originX = tiling.first.x
        let originY = tiling.first.y
        let markW = mark.width
        let markH = mark.height
        return compositing(mark, opacity: opacity, rows: 0..<height, columns: 0..<width) { x, y in
            // Position inside the tile grid relative to the first mark, wrapped to one tile.
            let tx = ((x - originX) % stepX + stepX) % stepX
            let ty = ((y - originY) % stepY + stepY) % stepY
            guard tx < markW, ty < markH else { return nil }
            return ty * markW + tx
        }
    }

    /// A copy with the mark pixel `markIndex(x, y)` (if any) composited over each pixel of the
    /// given rows and columns.
    private func compositing(
        _ mark: PixelBuffer, opacity: Float, rows: Range<Int>, columns: Range<Int>, markIndex: (Int, Int) -> Int?
    ) -> PixelBuffer {
        let w = width
        var result = bytes
        mark.bytes.withUnsafeBufferPointer { markBytes in
            result.withUnsafeMutableBufferPointer { out in
                guard let m = markBytes.baseAddress, let o = out.baseAddress else { return }
                for y in rows {
                    for x in columns {
                        guard let source = markIndex(x, y) else { continue }
                        let s = Premultiplied.load(m, source) * opacity
                        if s.w <= 0 { continue }
                        let index = y * w + x
                        let base = Premultiplied.load(UnsafePointer(o), index)
                        Premultiplied.store(s + base * (1 - s.w / 255), o, index)
                    }
                }
            }
        }
        return PixelBuffer(width: width, height: height, bytes: result)
    }
}
