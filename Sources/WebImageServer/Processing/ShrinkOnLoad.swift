import WebImage

/// Shrink on load (issue #15): a JPEG, still WebP or still non-interlaced PNG source that the
/// request scales down by 2 or more is decoded reduced — a JPEG at the smallest DCT scale (1/2,
/// 1/4, 1/8), a WebP at the largest integer shrink from 2 to 8 that libwebp's rescaler applies
/// while decoding, a PNG at the largest integer shrink from 2 to 8 averaged block by block as
/// libspng decodes its rows — as long as
/// the reduced pixels still number at least the scaled result's across the source crop, as
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
    var decoder: ReducedDecoder
    /// The source as stored.
    var storedSize: PixelSize
    /// How the displayed axes come from the stored ones once the orientation the decoder applies
    /// and the `rotate` option are done.
    var axes: AxisMap

    /// The geometry of a source stored at `storedSize`, shown after `orientation` (`.up` when the
    /// decoder leaves it) and a clockwise `rotate` of 0, 90, 180 or 270 degrees.
    init(storedSize: PixelSize, orientation: ImageOrientation, rotate: Int, decoder: ReducedDecoder = .jpeg) {
        self.decoder = decoder
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

    /// The scale denominator for `options`: one of the decoder's denominators, or 1 for a
    /// full-size decode.
    func denominator(for options: ProcessingOptions) -> Int {
        guard options.trim == nil, !Self.usesSmartGravity(options) else { return 1 }
        guard [0, 90, 180, 270].contains(options.rotate) else { return 1 }
        let plan = GeometryPlan(source: fullSize, options: options)
        let area = plan.sourceCrop, scaled = plan.scaledSize
        // Every decoder rounds the reduced sides up (⌈side / d⌉), so a crop at least d times the
        // scaled size keeps at least the scaled size's pixels.
        for d in decoder.denominators.sorted(by: >)
        where area.width >= scaled.width * d && area.height >= scaled.height * d {
            return d
        }
        return 1
    }

    /// How the pixels of a decode at 1/`denominator` relate to the full displayed size.
    func reduction(_ denominator: Int) -> ReducedSource {
        let reduced = decoder.reducedSize(of: storedSize, scaleDenominator: denominator)
        switch decoder {
        case .jpeg, .png:
            // libjpeg's (and the PNG block average's) reduced pixel i covers stored pixels
            // i·d ..< (i+1)·d, padding (or a partial block) at the far end. An axis whose direction the orientation or rotation reversed has that padding
            // at its start instead: full coordinate v is then reduced (v + padding) / d.
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
        case .webp:
            // libwebp spreads the reduced pixels evenly over the stored ones, whichever way an
            // axis is shown: full coordinate v is reduced v · w′/w on that axis.
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

/// A decoder that can decode a source reduced, and the layout of its reduced pixels.
enum ReducedDecoder: Sendable, Hashable {
    /// libjpeg-turbo's DCT scaling (``/WebImageCodecs/JPEGCoder/decode(_:scaleDenominator:options:)``):
    /// 1/2, 1/4, 1/8, each reduced pixel a d×d block, padding at the far end.
    case jpeg
    /// libwebp's rescaler (``/WebImageCodecs/WebPCoder/decode(_:scaleDenominator:options:)``):
    /// 1/2 … 1/8 of a still image, the reduced pixels spread evenly over the stored ones.
    case webp
    /// libspng's row-by-row decode averaged in d×d blocks
    /// (``/WebImageCodecs/PNGCoder/decode(_:scaleDenominator:options:)``): 1/2 … 1/8 of a still,
    /// non-interlaced PNG, each reduced pixel a d×d block, a partial block at the far end.
    case png

    /// The denominators besides 1 the decoder offers.
    var denominators: [Int] {
        switch self {
        case .jpeg: JPEGCoder.reducedDecodeDenominators
        case .webp: WebPCoder.reducedDecodeDenominators
        case .png: PNGCoder.reducedDecodeDenominators
        }
    }

    /// The size of a decode at 1/`scaleDenominator` of a source stored at `size`.
    func reducedSize(of size: PixelSize, scaleDenominator: Int) -> PixelSize {
        switch self {
        case .jpeg: JPEGCoder.reducedSize(of: size, scaleDenominator: scaleDenominator)
        case .webp: WebPCoder.reducedSize(of: size, scaleDenominator: scaleDenominator)
        case .png: PNGCoder.reducedSize(of: size, scaleDenominator: scaleDenominator)
        }
    }
}

/// A source decoded reduced, and how to find full-size coordinates in it: on each displayed
/// axis, full coordinate v is reduced coordinate (v + offset) · scale.
struct ReducedSource: Sendable, Hashable {
    /// The reduction the decoder was asked for (2 … 8); what the decode metric counts.
    var denominator: Int
    /// The full displayed size the geometry is planned on.
    var fullSize: PixelSize
    /// Reduced pixels per full pixel on each displayed axis: 1/d for a JPEG or PNG, w′/w for a WebP.
    var scaleX: Double
    var scaleY: Double
    /// Full pixels of encoder padding (or of a PNG's partial block) before the image on each
    /// displayed axis (a JPEG's or PNG's reversed axes; see ``ShrinkOnLoad/reduction(_:)``).
    var offsetX: Int
    var offsetY: Int

    /// `region` (full-size coordinates) in the reduced pixels' coordinates.
    func map(_ region: ResampleRegion) -> ResampleRegion {
        ResampleRegion(
            x: (region.x + Double(offsetX)) * scaleX, y: (region.y + Double(offsetY)) * scaleY,
            width: region.width * scaleX, height: region.height * scaleY)
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
