/// The geometry steps on a gain map (SPEC H-3): each takes the base's size before the step and
/// does to the map, at its own scale, what the step does to the base, so that map pixel `i`
/// keeps covering the same part of the picture. The map's whole fraction of the base
/// (``GainMap/size(forBase:currentBase:)``) and channel count are kept.
extension GainMap {
    /// The factors from base coordinates to map coordinates, for a base of `base` pixels.
    func mapFactors(base: PixelSize) -> (x: Double, y: Double) {
        (Double(pixels.width) / Double(max(1, base.width)), Double(pixels.height) / Double(max(1, base.height)))
    }

    /// The map for a base resampled from `region` (base coordinates; `nil`: all of it) of a
    /// `base`-sized image to `newBase`.
    public func resampled(base: PixelSize, to newBase: PixelSize, region: ResampleRegion? = nil, resampler: Resampler = Resampler()) -> GainMap {
        let target = size(forBase: newBase, currentBase: base)
        let f = mapFactors(base: base)
        let mapRegion = region.map { ResampleRegion(x: $0.x * f.x, y: $0.y * f.y, width: $0.width * f.x, height: $0.height * f.y) }
        if target == pixelSize, mapRegion == nil { return self }
        return replacing(pixels: resampler.resample(pixels, to: target, region: mapRegion))
    }

    /// The map for a base cropped to `rect` (base coordinates) of a `base`-sized image: a
    /// plain crop when the map has the base's size, else the same area resampled at the map's
    /// scale.
    public func cropped(base: PixelSize, to rect: PixelRect, resampler: Resampler = Resampler()) -> GainMap {
        if pixelSize == base, let cropped = pixels.cropped(to: rect) { return replacing(pixels: cropped) }
        let region = ResampleRegion(x: Double(rect.x), y: Double(rect.y), width: Double(rect.width), height: Double(rect.height))
        return resampled(base: base, to: PixelSize(width: rect.width, height: rect.height), region: region, resampler: resampler)
    }

    /// The map turned or mirrored as `orientation` turns the base.
    public func applying(_ orientation: ImageOrientation) -> GainMap {
        orientation == .up ? self : replacing(pixels: pixels.applying(orientation))
    }

    /// The map for a base of `base` pixels placed at (`x`, `y`) on a `canvas`-sized image
    /// (extend, padding): the added area gets the neutral gain (``neutralPixel``), so it stays
    /// as the base shows it in HDR too.
    public func extended(base: PixelSize, to canvas: PixelSize, x: Int, y: Int, resampler: Resampler = Resampler()) -> GainMap {
        let target = size(forBase: canvas, currentBase: base)
        let f = mapFactors(base: base)
        let left = min(target.width - 1, max(0, Int((Double(x) * f.x).rounded())))
        let top = min(target.height - 1, max(0, Int((Double(y) * f.y).rounded())))
        let right = min(target.width, max(left + 1, Int((Double(x + base.width) * f.x).rounded())))
        let bottom = min(target.height, max(top + 1, Int((Double(y + base.height) * f.y).rounded())))
        let placed = PixelSize(width: right - left, height: bottom - top)
        let inner = placed == pixelSize ? pixels : resampler.resample(pixels, to: placed)
        return replacing(pixels: inner.extended(to: target, x: left, y: top, fill: neutralPixel))
    }
}

extension Image {
    /// A copy of this image with `gainMap` (and no gain-map issue), or with none and `issue`.
    public func replacing(gainMap: GainMap?, issue: GainMapIssue? = nil) -> Image {
        Image(
            frames: frames, scale: scale, orientation: orientation, format: format, loopCount: loopCount,
            hasAlpha: hasAlpha, colorProfile: colorProfile, gainMap: gainMap, gainMapIssue: gainMap == nil ? issue ?? gainMapIssue : nil)
    }

    /// This image after a geometry step that took it from `before` (the image the step read):
    /// the map of `before` carried through `body`, or nothing when `before` had none.
    public func carryingGainMap(from before: Image, _ body: (GainMap) -> GainMap?) -> Image {
        guard let map = before.gainMap else { return self }
        guard let moved = body(map) else {
            return replacing(gainMap: nil, issue: GainMapIssue(.geometry, "a step the gain map cannot follow"))
        }
        return replacing(gainMap: moved)
    }
}
