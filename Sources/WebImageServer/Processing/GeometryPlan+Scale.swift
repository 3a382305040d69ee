import WebImage

extension GeometryPlan {
    /// imgproxy's scale computation (`calcScale`), in shrink factors (source pixels per result
    /// pixel): the resizing type's shrink for the requested size; `zoom`; without `enlarge`,
    /// no axis enlarged and the device-pixel ratio lowered to what the source can give without
    /// enlarging (with `extend`, the ratio is lowered and the canvas keeps the requested size);
    /// `min-width` and `min-height` shrinking less; the ratio applied last; at least one pixel.
    struct Scale: Equatable {
        /// The scale factors, result pixels per source pixel.
        var x, y: Double
        /// The device-pixel ratio used.
        var dpr: Double

        /// The scale of a `source`-sized area (after the `crop` option) under `options`.
        init(source: PixelSize, options: ProcessingOptions) {
            let srcW = Double(source.width), srcH = Double(source.height)
            let dstW = options.width == 0 ? srcW : Double(options.width)
            let dstH = options.height == 0 ? srcH : Double(options.height)
            var wShrink: Double = dstW == srcW ? 1 : srcW / dstW
            var hShrink: Double = dstH == srcH ? 1 : srcH / dstH
            if wShrink != 1 || hShrink != 1 {
                var type = options.resizingType
                if type == .auto {
                    type = (srcW >= srcH) == (dstW >= dstH) ? .fill : .fit
                }
                if options.width == 0, type != .force {
                    wShrink = hShrink
                } else if options.height == 0, type != .force {
                    hShrink = wShrink
                } else if type == .fit {
                    (wShrink, hShrink) = (max(wShrink, hShrink), max(wShrink, hShrink))
                } else if type == .fill || type == .fillDown {
                    (wShrink, hShrink) = (min(wShrink, hShrink), min(wShrink, hShrink))
                }
            }
            wShrink /= options.zoomX
            hShrink /= options.zoomY
            var dpr = options.dpr
            if !options.enlarge {
                let least = min(wShrink, hShrink)
                if least < 1 {
                    wShrink /= least
                    hShrink /= least
                    if !options.extend { dpr /= least }
                }
                // The smaller shrink is the largest ratio usable without enlarging.
                dpr = min(dpr, min(wShrink, hShrink))
            }
            if options.minWidth > 0 {
                let least = srcW / Double(options.minWidth)
                if least < wShrink {
                    hShrink /= wShrink / least
                    wShrink = least
                }
            }
            if options.minHeight > 0 {
                let least = srcH / Double(options.minHeight)
                if least < hShrink {
                    wShrink /= hShrink / least
                    hShrink = least
                }
            }
            wShrink = min(wShrink / dpr, srcW)
            hShrink = min(hShrink / dpr, srcH)
            x = 1 / wShrink
            y = 1 / hShrink
            self.dpr = dpr
        }
    }
}
