import WebImage

/// imgproxy's geometry rules as pure arithmetic on sizes (SPEC V-2): what the source is
/// cropped to, what it is scaled to, what the scaled image is cropped to, and the canvas it is
/// extended onto. Rotation is applied before planning, so sizes are the rotated ones.
struct GeometryPlan: Equatable, Sendable {
    /// The `crop` option's area in source pixels (the whole source when absent).
    var sourceCrop: PixelRect
    /// The size the cropped source is scaled to.
    var scaledSize: PixelSize
    /// The part of the scaled image kept (`fill`, `fill-down`); the whole scaled image otherwise.
    var resultCrop: PixelRect
    /// The canvas size when extending, with the kept image's origin on it.
    var canvas: (size: PixelSize, origin: (x: Int, y: Int))?
    /// The device-pixel ratio used: `dpr`, lowered where it would need the source enlarged
    /// (``Scale``). The requested size, gravity offsets and extend canvas are scaled by it.
    var dprScale: Double
    /// The `padding` option's sides in result pixels (scaled by ``dprScale``, not by `zoom`),
    /// added around the canvas; `nil` without padding.
    var padding: PaddingOptions?

    static func == (lhs: GeometryPlan, rhs: GeometryPlan) -> Bool {
        lhs.sourceCrop == rhs.sourceCrop && lhs.scaledSize == rhs.scaledSize && lhs.resultCrop == rhs.resultCrop
            && lhs.dprScale == rhs.dprScale && lhs.padding == rhs.padding
            && lhs.canvas?.size == rhs.canvas?.size && lhs.canvas?.origin.x == rhs.canvas?.origin.x
            && lhs.canvas?.origin.y == rhs.canvas?.origin.y
    }

    /// The size before padding: the extend canvas, else the kept part of the scaled image.
    var canvasSize: PixelSize {
        canvas?.size ?? PixelSize(width: resultCrop.width, height: resultCrop.height)
    }

    /// The result's size: ``canvasSize`` with the padding around it.
    var outputSize: PixelSize {
        let size = canvasSize
        guard let padding else { return size }
        return PixelSize(width: size.width + padding.left + padding.right, height: size.height + padding.top + padding.bottom)
    }

    /// Plans `options` for a source of `source` pixels. `smartCenter` gives the center of the
    /// most detailed region of a given area (for `g:sm`), in that area's coordinates.
    init(source: PixelSize, options: ProcessingOptions, smartCenter: (PixelRect) -> (x: Double, y: Double) = { ($0.width.d / 2, $0.height.d / 2) }) {
        // 1. crop (before resize)
        var area = PixelRect(x: 0, y: 0, width: source.width, height: source.height)
        if let crop = options.crop {
            func side(_ value: Double, _ full: Int) -> Int {
                if value == 0 { return full }
                if value < 1 { return max(1, Int((value * Double(full)).rounded())) }
                return min(full, Int(value.rounded()))
            }
            let size = Self.correcting(
                PixelSize(width: side(crop.width, source.width), height: side(crop.height, source.height)),
                toAspectRatio: options.cropAspectRatio, enlarge: options.cropAspectRatioEnlarge, within: source)
            let gravity = crop.gravity ?? options.gravity
            area = Self.place(size, in: source, gravity: gravity, dpr: 1, smartCenter: { smartCenter(area) })
        }
        sourceCrop = area

        // 2. scale (imgproxy's calcScale: ``Scale``)
        let scale = Scale(source: PixelSize(width: area.width, height: area.height), options: options)
        dprScale = scale.dpr
        let (sw, sh) = (Double(area.width), Double(area.height))
        scaledSize = PixelSize(width: max(1, Int((sw * scale.x).rounded())), height: max(1, Int((sh * scale.y).rounded())))

        // 3. crop the scaled image to the requested size (scaled by the capped dpr and zoom)
        let target = PixelSize(
            width: Int((Double(options.width) * dprScale * options.zoomX).rounded()),
            height: Int((Double(options.height) * dprScale * options.zoomY).rounded()))
        var keep = PixelSize(
            width: target.width == 0 ? scaledSize.width : min(scaledSize.width, target.width),
            height: target.height == 0 ? scaledSize.height : min(scaledSize.height, target.height))
        if options.resizingType == .fillDown, target.width > 0, target.height > 0,
           keep.width < target.width || keep.height < target.height {
            // Keep the requested aspect ratio inside what is there.
            let ratio = Double(target.width) / Double(target.height)
            if Double(keep.width) / Double(keep.height) > ratio {
                keep.width = max(1, Int((Double(keep.height) * ratio).rounded()))
            } else {
                keep.height = max(1, Int((Double(keep.width) / ratio).rounded()))
            }
        }
        let scaleToSource = (x: sw / Double(scaledSize.width), y: sh / Double(scaledSize.height))
        let offsetScale = dprScale
        resultCrop = Self.place(keep, in: scaledSize, gravity: options.gravity, dpr: offsetScale, smartCenter: {
            let center = smartCenter(area)
            return (center.x / scaleToSource.x, center.y / scaleToSource.y)
        })

        // 4. extend onto the requested canvas, or to the requested aspect ratio
        canvas = nil
        var extended: (size: PixelSize, gravity: Gravity)?
        if options.extend {
            let size = PixelSize(width: max(keep.width, target.width), height: max(keep.height, target.height))
            extended = (size, options.extendGravity)
        }
        if options.extendAspectRatio, extended.map({ $0.size == keep }) ?? true, target.width > 0, target.height > 0 {
            let ratioW = Double(target.width) / Double(keep.width), ratioH = Double(target.height) / Double(keep.height)
            var size = keep
            if ratioH > ratioW {
                size.height = Int((Double(keep.width) * Double(target.height) / Double(target.width)).rounded())
            } else if ratioW > ratioH {
                size.width = Int((Double(keep.height) * Double(target.width) / Double(target.height)).rounded())
            }
            extended = (size, options.extendAspectRatioGravity)
        }
        if let extended, extended.size.width > keep.width || extended.size.height > keep.height {
            let size = PixelSize(width: max(keep.width, extended.size.width), height: max(keep.height, extended.size.height))
            let spot = Self.place(keep, in: size, gravity: extended.gravity, dpr: offsetScale, smartCenter: {
                (Double(size.width) / 2, Double(size.height) / 2)
            })
            canvas = (size, (spot.x, spot.y))
        }

        // 5. padding around the result, scaled by the device-pixel ratio used
        padding = options.padding.map { $0.scaled(by: dprScale) }.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Where a `size` area lies inside `container` under `gravity` (imgproxy's offsets: ≥ 1
    /// pixels scaled by dpr, < 1 a fraction of the container; east/south offsets push inward).
    static func place(_ size: PixelSize, in container: PixelSize, gravity: Gravity, dpr: Double, smartCenter: () -> (x: Double, y: Double)) -> PixelRect {
        let freeX = Double(container.width - size.width), freeY = Double(container.height - size.height)
        var x: Double, y: Double
        switch gravity {
        case let .anchor(anchor, offsetX, offsetY):
            let ox = abs(offsetX) < 1 ? offsetX * Double(container.width) : offsetX * dpr
            let oy = abs(offsetY) < 1 ? offsetY * Double(container.height) : offsetY * dpr
            switch anchor {
            case .north: (x, y) = (freeX / 2 + ox, oy)
            case .south: (x, y) = (freeX / 2 + ox, freeY - oy)
            case .east: (x, y) = (freeX - ox, freeY / 2 + oy)
            case .west: (x, y) = (ox, freeY / 2 + oy)
            case .northEast: (x, y) = (freeX - ox, oy)
            case .northWest: (x, y) = (ox, oy)
            case .southEast: (x, y) = (freeX - ox, freeY - oy)
            case .southWest: (x, y) = (ox, freeY - oy)
            case .center: (x, y) = (freeX / 2 + ox, freeY / 2 + oy)
            }
        case let .focusPoint(fx, fy):
            (x, y) = (fx * Double(container.width) - Double(size.width) / 2, fy * Double(container.height) - Double(size.height) / 2)
        case .smart:
            let center = smartCenter()
            (x, y) = (center.x - Double(size.width) / 2, center.y - Double(size.height) / 2)
        }
        let clampedX = Int(min(max(0, x), max(0, freeX)).rounded(.down))
        let clampedY = Int(min(max(0, y), max(0, freeY)).rounded(.down))
        return PixelRect(x: clampedX, y: clampedY, width: size.width, height: size.height)
    }
}

extension Int {
    var d: Double { Double(self) }
}
