import WebImage

/// Shrink on load (issue #15): a JPEG source that the request scales down by 2 or more is
/// decoded at the smallest DCT scale (1/2, 1/4, 1/8) whose pixels still number at least the
/// scaled result's across the source crop — as imgproxy (libvips `shrink`) and thumbor
/// (Pillow's `draft`) do — and the one final resample runs from the reduced pixels.
///
/// The geometry is planned on the full size (orientation and rotation applied) and the plan's
/// source region is mapped onto the reduced pixels, so the result has the same size, crop and
/// placement; only the first, block-averaging step of the shrink differs. Options whose result
/// depends on the full-resolution pixels themselves decode at full size: `trim` (its box is
/// found from exact pixel values) and smart gravity (its detail measure samples pixels).
struct ShrinkOnLoad: Sendable {
    /// The source as stored.
    var storedSize: PixelSize
    /// How the displayed axes come from the stored ones once the orientation the decoder applies
    /// and the `rotate` option are done.
    var axes: AxisMap

    /// The geometry of a JPEG stored at `storedSize`, shown after `orientation` (`.up` when the
    /// decoder leaves it) and a clockwise `rotate` of 0, 90, 180 or 270 degrees.
    init(storedSize: PixelSize, orientation: ImageOrientation, rotate: Int) {
        self.storedSize = storedSize
        let turn: ImageOrientation = switch rotate {
        case 90: .right
        case 180: .down
        case 270: .left
        default: .up
        }
        axes = AxisMap(orientation).then(AxisMap(turn))
    }

    /// The full displayed size: what the geometry is planned on.
    var fullSize: PixelSize { axes.size(of: storedSize) }

    /// The scale denominator for `options`: 2, 4 or 8, or 1 for a full-size decode.
    func denominator(for options: ProcessingOptions) -> Int {
        guard options.trim == nil, !Self.usesSmartGravity(options) else { return 1 }
        guard [0, 90, 180, 270].contains(options.rotate) else { return 1 }
        let plan = GeometryPlan(source: fullSize, options: options)
        let area = plan.sourceCrop, scaled = plan.scaledSize
        for d in JPEGCoder.reducedDecodeDenominators.sorted(by: >)
        where area.width >= scaled.width * d && area.height >= scaled.height * d {
            return d
        }
        return 1
    }

    /// How the pixels of a decode at 1/`denominator` relate to the full displayed size.
    func reduction(_ denominator: Int) -> ReducedSource {
        let reduced = JPEGCoder.reducedSize(of: storedSize, scaleDenominator: denominator)
        // libjpeg's reduced pixel i covers stored pixels i·d ..< (i+1)·d, padding at the far
        // end. An axis whose direction the orientation or rotation reversed has that padding at
        // its start instead: full coordinate v is then reduced (v + padding) / d.
        func padding(_ source: AxisMap.Source) -> Int {
            guard source.reversed else { return 0 }
            return source.storedAxis == 0
                ? reduced.width * denominator - storedSize.width
                : reduced.height * denominator - storedSize.height
        }
        return ReducedSource(
            denominator: denominator, fullSize: fullSize,
            offsetX: padding(axes.x), offsetY: padding(axes.y))
    }

    static func usesSmartGravity(_ options: ProcessingOptions) -> Bool {
        if case .smart = options.gravity { return true }
        if let crop = options.crop, let gravity = crop.gravity, case .smart = gravity { return true }
        return false
    }
}

/// A source decoded at 1/`denominator` of its size, and how to find full-size coordinates in it.
struct ReducedSource: Sendable, Hashable {
    /// 2, 4 or 8.
    var denominator: Int
    /// The full displayed size the geometry is planned on.
    var fullSize: PixelSize
    /// Full pixels of encoder padding before the image on each displayed axis (see
    /// ``ShrinkOnLoad/reduction(_:)``).
    var offsetX: Int
    var offsetY: Int

    /// `region` (full-size coordinates) in the reduced pixels' coordinates.
    func map(_ region: ResampleRegion) -> ResampleRegion {
        let d = Double(denominator)
        return ResampleRegion(
            x: (region.x + Double(offsetX)) / d, y: (region.y + Double(offsetY)) / d,
            width: region.width / d, height: region.height / d)
    }
}

/// For each axis of a displayed image, which stored axis it shows and whether reversed
/// (the pixel moves of ``/WebImageCore/PixelBuffer/applying(_:)``).
struct AxisMap: Sendable, Hashable {
    struct Source: Sendable, Hashable {
        /// 0 for the stored x axis, 1 for y.
        var storedAxis: Int
        var reversed: Bool
    }

    var x: Source
    var y: Source

    init(x: Source, y: Source) {
        self.x = x
        self.y = y
    }

    /// The axes after turning stored pixels upright for `orientation`.
    init(_ orientation: ImageOrientation) {
        func s(_ axis: Int, _ reversed: Bool) -> Source { Source(storedAxis: axis, reversed: reversed) }
        switch orientation {
        case .up: (x, y) = (s(0, false), s(1, false))
        case .upMirrored: (x, y) = (s(0, true), s(1, false))
        case .down: (x, y) = (s(0, true), s(1, true))
        case .downMirrored: (x, y) = (s(0, false), s(1, true))
        case .leftMirrored: (x, y) = (s(1, false), s(0, false))
        case .right: (x, y) = (s(1, true), s(0, false))
        case .rightMirrored: (x, y) = (s(1, true), s(0, true))
        case .left: (x, y) = (s(1, false), s(0, true))
        }
    }

    /// `self` followed by `next` (which acts on the axes `self` produced).
    func then(_ next: AxisMap) -> AxisMap {
        func follow(_ step: Source) -> Source {
            let before = step.storedAxis == 0 ? x : y
            return Source(storedAxis: before.storedAxis, reversed: before.reversed != step.reversed)
        }
        return AxisMap(x: follow(next.x), y: follow(next.y))
    }

    /// The displayed size of an image stored at `stored`.
    func size(of stored: PixelSize) -> PixelSize {
        x.storedAxis == 0 ? stored : PixelSize(width: stored.height, height: stored.width)
    }
}
