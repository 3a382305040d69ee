import WebImage

/// For each axis of a displayed image, which stored axis it shows and whether reversed
/// (the pixel moves of `PixelBuffer/applying(_:)`).
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
