import WebImage

/// Shrink on load: a source whose decoder can reduce it (``ReducedImageDecoding``: a JPEG, a
/// still WebP, a still non-interlaced PNG) and that the request scales down by 2 or more is
/// decoded reduced by the largest factor the decoder offers — a JPEG's DCT scales 1/2, 1/4, 1/8,
/// libwebp's rescaler or the PNG block average at any integer from 2 to 8 — as long as the
/// reduced pixels still number at least the scaled result's across the source crop, as
/// imgproxy (libvips `shrink`) and thumbor (Pillow's `draft`) do; the one final resample runs
/// from the reduced pixels.
///
/// The geometry is planned on the full size (orientation and rotation applied) and the plan's
/// source region is mapped onto the reduced pixels, so the result has the same size, crop and
/// placement; only the first, averaging step of the shrink differs. Options whose result
/// depends on the full-resolution pixels themselves decode at full size: `trim` (its box is
/// found from exact pixel values) and smart gravity (its detail measure samples pixels). (The
/// URL parser turns every `rotate` into 0, 90, 180 or 270; any other angle would decode at full
/// size too.)
struct ShrinkOnLoad: Sendable {
    /// The decoder that reduces: which reductions it offers and how its pixels are laid out.
    var decoder: any ReducedImageDecoding
    /// The source as stored.
    var storedSize: PixelSize
    /// How the displayed axes come from the stored ones once the orientation the decoder applies,
    /// the `rotate` option and the `flip` option are done.
    var axes: AxisMap

    /// The geometry of a source stored at `storedSize`, shown after `orientation` (`.up` when the
    /// decoder leaves it), a clockwise `rotate` of 0, 90, 180 or 270 degrees, then mirrored
    /// left ↔ right (`flipHorizontal`) and top ↔ bottom (`flipVertical`).
    init(
        storedSize: PixelSize, orientation: ImageOrientation, rotate: Int, flipHorizontal: Bool = false, flipVertical: Bool = false,
        decoder: any ReducedImageDecoding = JPEGCoder()
    ) {
        self.decoder = decoder
        self.storedSize = storedSize
        let turn: ImageOrientation = switch rotate {
        case 90: .right
        case 180: .down
        case 270: .left
        default: .up
        }
        let mirror: ImageOrientation = flipHorizontal ? (flipVertical ? .down : .upMirrored) : (flipVertical ? .downMirrored : .up)
        axes = AxisMap(orientation).then(AxisMap(turn)).then(AxisMap(mirror))
    }

    /// The full displayed size: what the geometry is planned on.
    var fullSize: PixelSize { axes.size(of: storedSize) }

    /// The scale denominator for `options`: one of the decoder's denominators, or 1 for a
    /// full-size decode.
    func denominator(for options: ProcessingOptions) -> Int {
        guard options.trim == nil, !Self.usesSmartGravity(options) else { return 1 }
        guard [0, 90, 180, 270].contains(options.rotate) else { return 1 }
        let plan = GeometryPlan(source: fullSize, options: options)
        let area = plan.sourceCrop, scaled = plan.scaledSize
        // Every decoder rounds the reduced sides up (⌈side / d⌉), so a crop at least d times the
        // scaled size keeps at least the scaled size's pixels.
        for d in type(of: decoder).reducedDecodeDenominators.sorted(by: >)
        where area.width >= scaled.width * d && area.height >= scaled.height * d {
            return d
        }
        return 1
    }

    /// How the pixels of a decode at 1/`denominator` relate to the full displayed size.
    func reduction(_ denominator: Int) -> ReducedSource {
        let reduced = type(of: decoder).reducedSize(of: storedSize, scaleDenominator: denominator)
        switch type(of: decoder).reducedPixelLayout {
        case .blocks:
            // Reduced pixel i covers stored pixels i·d ..< (i+1)·d, padding (a JPEG's) or a
            // partial block (a PNG's) at the far end. An axis whose direction the orientation or
            // rotation reversed has that padding at its start instead: full coordinate v is then
            // reduced (v + padding) / d.
            func padding(_ source: AxisMap.Source) -> Int {
                guard source.reversed else { return 0 }
                return source.storedAxis == 0
                    ? reduced.width * denominator - storedSize.width
                    : reduced.height * denominator - storedSize.height
            }
            let scale = 1 / Double(denominator)
            return ReducedSource(
                denominator: denominator, fullSize: fullSize,
                scaleX: scale, scaleY: scale, offsetX: padding(axes.x), offsetY: padding(axes.y))
        case .spread:
            // The decoder (libwebp) spreads the reduced pixels evenly over the stored ones,
            // whichever way an axis is shown: full coordinate v is reduced v · w′/w on that axis.
            func scale(_ source: AxisMap.Source) -> Double {
                source.storedAxis == 0
                    ? Double(reduced.width) / Double(storedSize.width)
                    : Double(reduced.height) / Double(storedSize.height)
            }
            return ReducedSource(
                denominator: denominator, fullSize: fullSize,
                scaleX: scale(axes.x), scaleY: scale(axes.y), offsetX: 0, offsetY: 0)
        }
    }

    static func usesSmartGravity(_ options: ProcessingOptions) -> Bool {
        if case .smart = options.gravity { return true }
        if let crop = options.crop, let gravity = crop.gravity, case .smart = gravity { return true }
        return false
    }
}
